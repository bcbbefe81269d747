/** Python tags: classes, functions, module-level constants; calls, decorators, base classes and annotations. */
export const PYTHON_QUERY = `
(class_definition name: (identifier) @def.class)
(function_definition name: (identifier) @def.function)
(module (expression_statement (assignment left: (identifier) @def.constant)))

(call function: (identifier) @ref.call)
(call function: (attribute attribute: (identifier) @ref.call))
(decorator (identifier) @ref.call)
(class_definition superclasses: (argument_list (identifier) @ref.class))
(type (identifier) @ref.type)
(type (generic_type (identifier) @ref.type))
`;

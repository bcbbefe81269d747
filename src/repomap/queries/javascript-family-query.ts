/**
 * Tag queries for the JavaScript family (JavaScript, TypeScript, TSX). Captures named `def.*` become definitions,
 * `ref.*` references. Aider's TS query has no call references and misses arrow-function constants and JSX usage
 * (docs/behaviour.md#tags, grep-ast #21), which is why these are written from scratch.
 */

/** Patterns valid in all three grammars: functions, methods, arrow constants, calls and `new`. */
const CORE = `
(function_declaration name: (identifier) @def.function)
(generator_function_declaration name: (identifier) @def.function)
(method_definition name: (property_identifier) @def.method (#not-eq? @def.method "constructor"))
(lexical_declaration (variable_declarator name: (identifier) @def.function value: [(arrow_function) (function_expression)]))
(variable_declaration (variable_declarator name: (identifier) @def.function value: [(arrow_function) (function_expression)]))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @def.constant))))
(pair key: (property_identifier) @def.method value: [(arrow_function) (function_expression)])
(assignment_expression left: (member_expression property: (property_identifier) @def.method) right: [(arrow_function) (function_expression)])

(call_expression function: (identifier) @ref.call (#not-eq? @ref.call "require"))
(call_expression function: (member_expression property: (property_identifier) @ref.call))
(new_expression constructor: (identifier) @ref.class)
(new_expression constructor: (member_expression property: (property_identifier) @ref.class))
(decorator (identifier) @ref.call)
`;

/** JSX: an element whose tag starts with a capital letter is a component reference (`<Foo />`, `<ui.Foo>`). */
const JSX = `
(jsx_opening_element name: (identifier) @ref.component (#match? @ref.component "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @ref.component (#match? @ref.component "^[A-Z]"))
(jsx_opening_element name: (member_expression property: (property_identifier) @ref.component))
(jsx_self_closing_element name: (member_expression property: (property_identifier) @ref.component))
`;

/** In the JavaScript grammar class names are plain identifiers. */
const JS_ONLY = `
(class_declaration name: (identifier) @def.class)
(class name: (identifier) @def.class)
(class_heritage (identifier) @ref.class)
(field_definition property: (property_identifier) @def.method value: [(arrow_function) (function_expression)])
`;

/** TypeScript declarations and type references (type names in annotations, generics, `implements`). */
const TS_ONLY = `
(class_declaration name: (type_identifier) @def.class)
(abstract_class_declaration name: (type_identifier) @def.class)
(interface_declaration name: (type_identifier) @def.interface)
(type_alias_declaration name: (type_identifier) @def.type)
(enum_declaration name: (identifier) @def.enum)
(function_signature name: (identifier) @def.function)
(method_signature name: (property_identifier) @def.method)
(abstract_method_signature name: (property_identifier) @def.method)
(internal_module name: (identifier) @def.module)
(public_field_definition name: (property_identifier) @def.method value: [(arrow_function) (function_expression)])
(program (ambient_declaration (lexical_declaration (variable_declarator name: (identifier) @def.constant))))

(extends_clause value: (identifier) @ref.class)
(type_identifier) @ref.type
`;

/** The JavaScript query (JSX included: `.jsx` uses the same grammar). */
export const JAVASCRIPT_QUERY = CORE + JS_ONLY + JSX;
/** The TypeScript query (no JSX in this grammar). */
export const TYPESCRIPT_QUERY = CORE + TS_ONLY;
/** The TSX query: TypeScript plus JSX component references. */
export const TSX_QUERY = CORE + TS_ONLY + JSX;

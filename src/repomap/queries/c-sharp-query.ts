/** C# tags: types, methods, properties; invocations (plain and member), `new`, base lists and typed declarations. */
export const C_SHARP_QUERY = `
(class_declaration name: (identifier) @def.class)
(interface_declaration name: (identifier) @def.interface)
(struct_declaration name: (identifier) @def.class)
(enum_declaration name: (identifier) @def.enum)
(record_declaration name: (identifier) @def.class)
(delegate_declaration name: (identifier) @def.type)
(method_declaration name: (identifier) @def.method)

(invocation_expression function: (identifier) @ref.call)
(invocation_expression function: (member_access_expression name: (identifier) @ref.call))
(object_creation_expression type: (identifier) @ref.class)
(base_list (identifier) @ref.class)
(variable_declaration type: (identifier) @ref.type)
(parameter type: (identifier) @ref.type)
(generic_name (identifier) @ref.type)
`;

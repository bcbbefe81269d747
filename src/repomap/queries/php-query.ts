/** PHP tags: functions, classes, interfaces, traits, enums, methods; calls of every kind, `new` and type names. */
export const PHP_QUERY = `
(function_definition name: (name) @def.function)
(class_declaration name: (name) @def.class)
(interface_declaration name: (name) @def.interface)
(trait_declaration name: (name) @def.class)
(enum_declaration name: (name) @def.enum)
(method_declaration name: (name) @def.method)

(function_call_expression function: (name) @ref.call)
(function_call_expression function: (qualified_name (name) @ref.call))
(member_call_expression name: (name) @ref.call)
(nullsafe_member_call_expression name: (name) @ref.call)
(scoped_call_expression name: (name) @ref.call)
(object_creation_expression (name) @ref.class)
(object_creation_expression (qualified_name (name) @ref.class))
(base_clause (name) @ref.class)
(class_interface_clause (name) @ref.class)
(named_type (name) @ref.type)
`;

/** Go tags: functions, methods, types, interface methods, package-level consts/vars; calls and type names. */
export const GO_QUERY = `
(function_declaration name: (identifier) @def.function)
(method_declaration name: (field_identifier) @def.method)
(type_spec name: (type_identifier) @def.type)
(type_alias name: (type_identifier) @def.type)
(method_elem name: (field_identifier) @def.method)
(source_file (const_declaration (const_spec name: (identifier) @def.constant)))
(source_file (var_declaration (var_spec name: (identifier) @def.constant)))

(call_expression function: (identifier) @ref.call)
(call_expression function: (selector_expression field: (field_identifier) @ref.call))
(type_identifier) @ref.type
`;

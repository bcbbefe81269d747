/** Rust tags: fns, structs, enums, unions, traits, type aliases, modules, macros, consts; calls, macros, types. */
export const RUST_QUERY = `
(function_item name: (identifier) @def.function)
(function_signature_item name: (identifier) @def.function)
(struct_item name: (type_identifier) @def.class)
(enum_item name: (type_identifier) @def.enum)
(union_item name: (type_identifier) @def.class)
(trait_item name: (type_identifier) @def.interface)
(type_item name: (type_identifier) @def.type)
(mod_item name: (identifier) @def.module)
(macro_definition name: (identifier) @def.macro)
(const_item name: (identifier) @def.constant)
(static_item name: (identifier) @def.constant)

(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression field: (field_identifier) @ref.call))
(call_expression function: (scoped_identifier name: (identifier) @ref.call))
(call_expression function: (generic_function function: (identifier) @ref.call))
(macro_invocation macro: (identifier) @ref.macro)
(type_identifier) @ref.type
`;

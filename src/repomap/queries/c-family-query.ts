/**
 * C and C++ tags. Stock C/C++ queries have no call references; these add them. Function prototypes count as
 * definitions because in C the header is where the API is declared.
 */
const C_CORE = `
(function_declarator declarator: (identifier) @def.function)
(struct_specifier name: (type_identifier) @def.class body: (_))
(union_specifier name: (type_identifier) @def.class body: (_))
(enum_specifier name: (type_identifier) @def.enum body: (_))
(type_definition declarator: (type_identifier) @def.type)
(preproc_def name: (identifier) @def.macro)
(preproc_function_def name: (identifier) @def.macro)

(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression field: (field_identifier) @ref.call))
(type_identifier) @ref.type
`;

const CPP_ONLY = `
(function_declarator declarator: (field_identifier) @def.method)
(function_declarator declarator: (qualified_identifier name: (identifier) @def.method))
(class_specifier name: (type_identifier) @def.class body: (_))
(namespace_definition name: (namespace_identifier) @def.module)
(alias_declaration name: (type_identifier) @def.type)

(call_expression function: (qualified_identifier name: (identifier) @ref.call))
(call_expression function: (template_function name: (identifier) @ref.call))
(call_expression function: (field_expression field: (template_method name: (field_identifier) @ref.call)))
`;

/** The C query. */
export const C_QUERY = C_CORE;
/** The C++ query. */
export const CPP_QUERY = C_CORE + CPP_ONLY;

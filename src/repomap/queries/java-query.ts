/** Java tags: classes, interfaces, enums, records, annotations, methods; invocations, `new` and type names. */
export const JAVA_QUERY = `
(class_declaration name: (identifier) @def.class)
(interface_declaration name: (identifier) @def.interface)
(enum_declaration name: (identifier) @def.enum)
(record_declaration name: (identifier) @def.class)
(annotation_type_declaration name: (identifier) @def.interface)
(method_declaration name: (identifier) @def.method)

(method_invocation name: (identifier) @ref.call)
(type_identifier) @ref.type
`;

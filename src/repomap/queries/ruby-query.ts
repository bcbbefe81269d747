/** Ruby tags: methods, classes, modules, constants; method calls, `Const.new`/`Const.x` receivers, superclasses. */
export const RUBY_QUERY = `
(method name: (_) @def.method)
(singleton_method name: (_) @def.method)
(class name: (constant) @def.class)
(class name: (scope_resolution name: (constant) @def.class))
(module name: (constant) @def.module)
(module name: (scope_resolution name: (constant) @def.module))
(assignment left: (constant) @def.constant)

(call method: (identifier) @ref.call)
(call receiver: (constant) @ref.class)
(superclass (constant) @ref.class)
(scope_resolution name: (constant) @ref.class)
`;

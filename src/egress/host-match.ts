/**
 * Host names as the egress allowlist compares them (pure): lower case, no trailing dot, IPv6 literals without their
 * brackets. A pattern is a name (`registry.npmjs.org`) or a wildcard over its subdomains (`*.example.org`, which does
 * not match `example.org` itself).
 */

/** `Registry.NPMJS.org.` → `registry.npmjs.org`; `[::1]` → `::1`. */
export function normalizeHost(host: string): string {
  const h = host.trim().toLowerCase();
  const bare = h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
  return bare.endsWith(".") ? bare.slice(0, -1) : bare;
}

const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);

/** A host name (not an address, no port, no scheme) or `*.` followed by one. */
export function isHostPattern(pattern: string): boolean {
  const p = normalizeHost(pattern);
  const name = p.startsWith("*.") ? p.slice(2) : p;
  return name.length <= 253 && NAME.test(name) && !/^[0-9.]+$/.test(name);
}

/** Whether `host` is named by `pattern` (both normalized here). */
export function matchesPattern(host: string, pattern: string): boolean {
  const h = normalizeHost(host);
  const p = normalizeHost(pattern);
  if (p.startsWith("*.")) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
  return h === p;
}

/** Whether any of `patterns` names `host`. */
export function matchesAny(host: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => matchesPattern(host, p));
}

/**
 * `host:port` split (`[::1]:443` → `::1`, 443); null when it is not one. A missing port is `defaultPort` when given.
 */
export function splitHostPort(authority: string, defaultPort?: number): { host: string; port: number } | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+)(?::(\d{1,5}))?$/.exec(authority.trim());
  if (!m) return null;
  const port = m[2] !== undefined ? Number(m[2]) : defaultPort;
  if (port === undefined || !Number.isInteger(port) || port < 1 || port > 65_535) return null;
  return { host: normalizeHost(m[1]!), port };
}

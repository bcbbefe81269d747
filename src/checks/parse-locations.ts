import type { CheckLocation } from "./types.js";

/**
 * Error locations in lint/test output, in the formats tools print: `path:line[:col]` (gcc, ruff, eslint compact,
 * go, pytest), `path(line,col)` (tsc), `--> path:line:col` (rust), `File "path", line N` (Python tracebacks) and
 * ESLint's stylish blocks (a file header line, then `  line:col  error  message`). Only paths inside the
 * repository are kept, made relative. `knownFiles`, when given, restricts results to files that exist.
 */
export function parseLocations(output: string, root: string, knownFiles?: ReadonlySet<string>): CheckLocation[] {
  const out: CheckLocation[] = [];
  const seen = new Set<string>();
  const add = (rawPath: string, line: number, column?: number, message?: string) => {
    const path = relativize(rawPath.trim(), root);
    if (!path || line <= 0) return;
    if (knownFiles && !knownFiles.has(path)) return;
    const key = `${path}:${line}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ path, line, ...(column ? { column } : {}), ...(message ? { message: message.trim() } : {}) });
  };
  let stylishFile: string | null = null;
  for (const line of output.split("\n")) {
    let m: RegExpExecArray | null;
    if ((m = /^\s*File "([^"]+)", line (\d+)/.exec(line))) add(m[1]!, Number(m[2]));
    else if ((m = /^\s*-->\s+([^\s:]+):(\d+):(\d+)/.exec(line))) add(m[1]!, Number(m[2]), Number(m[3]));
    else if ((m = /^([^\s:()]+\.[A-Za-z0-9]+)\((\d+),(\d+)\):\s*(.*)$/.exec(line))) add(m[1]!, Number(m[2]), Number(m[3]), m[4]);
    else if ((m = /^\s*(?:\S+:\s+)?([^\s:]*[./][^\s:]*):(\d+)(?::(\d+))?:?\s*(.*)$/.exec(line))) add(m[1]!, Number(m[2]), m[3] ? Number(m[3]) : undefined, m[4]);
    else if (/^\/?\S+\.[A-Za-z0-9]+$/.test(line.trim()) && !line.startsWith(" ")) stylishFile = line.trim();
    else if (stylishFile && (m = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.*)$/.exec(line))) add(stylishFile, Number(m[1]), Number(m[2]), m[4]);
  }
  return out;
}

function relativize(p: string, root: string): string | null {
  let path = p.replace(/\\/g, "/");
  const r = root.replace(/\\/g, "/").replace(/\/$/, "");
  if (path.startsWith(`${r}/`)) path = path.slice(r.length + 1);
  else if (path.startsWith("/")) return null;
  path = path.replace(/^\.\//, "");
  if (path.split("/").includes("..")) return null;
  if (/^(https?|file):/.test(path)) return null;
  return path;
}

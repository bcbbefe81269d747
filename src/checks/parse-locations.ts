import { parseEslintJson } from "./parse-eslint-json.js";
import { relativeToRoot } from "./relative-to-root.js";
import type { CheckLocation } from "./types.js";

export interface ParseLocationsOptions {
  /** When given, only locations in these (repository-relative) files are kept. */
  knownFiles?: ReadonlySet<string>;
  /** At most this many locations (a test run can print thousands of stack frames). */
  limit?: number;
}

/** A file name with an extension (starting with a letter, so `12:30:45` and `1.5:3` are not paths). */
const PATH = String.raw`(?:[A-Za-z]:)?[\w@+~\-./\\]*[\w\-]\.[A-Za-z][A-Za-z0-9]*`;
const TRACEBACK = /^\s*File "([^"]+)", line (\d+)/;
const TSC = new RegExp(String.raw`^\s*(${PATH})\((\d+),(\d+)\)\s*:?\s*(.*)$`);
const STYLISH_HEADER = new RegExp(String.raw`^(${PATH})$`);
const STYLISH_ROW = /^\s+(\d+):(\d+)\s+(?:error|warning)\s+(.*?)(?:\s{2,}(\S+))?\s*$/;
const COLON = new RegExp(String.raw`(?<![\w@+~\-./\\])(${PATH}):(\d+)(?::(\d+))?`, "g");
const DIAGNOSTIC_HEADER = /^(?:error|warning)(?:\[\w+\])?: (.*)$/;

/**
 * Error locations in lint/test output, in the formats tools print (docs/behaviour.md#syntax-checks-and-error-locations — Aider only finds `relpath:LINE`,
 * docs/behaviour.md#aider-bugs-we-avoid (#15)): `path:line[:col]` anywhere in a line (gcc, ruff, mypy, go, pytest, eslint unix/compact, tsc --pretty,
 * stack frames), `path(line,col)` (tsc), `--> path:line:col` (rustc, with the message from the `error:` line above),
 * `File "path", line N` (Python tracebacks), ESLint's stylish blocks (a path line, then `  line:col  error  msg
 * rule`) and ESLint JSON. Only paths inside `root` are kept, relative; duplicates are dropped.
 *
 * @example parseLocations("src/a.ts(3,7): error TS2304: Cannot find name 'x'.", "/repo")
 * // [{ path: "src/a.ts", line: 3, column: 7, message: "error TS2304: Cannot find name 'x'." }]
 */
export function parseLocations(output: string, root: string, options: ParseLocationsOptions = {}): CheckLocation[] {
  const limit = options.limit ?? 200;
  const out: CheckLocation[] = [];
  const seen = new Set<string>();
  const add = (printed: string, line: number, column?: number, message?: string) => {
    const path = relativeToRoot(printed, root);
    if (!path || line <= 0 || out.length >= limit) return;
    if (options.knownFiles && !options.knownFiles.has(path)) return;
    const key = `${path}:${line}`; // one entry per line: the reflection marks lines
    if (seen.has(key)) return;
    seen.add(key);
    const text = message?.trim();
    out.push({ path, line, ...(column ? { column } : {}), ...(text ? { message: text } : {}) });
  };

  for (const loc of parseEslintJson(output) ?? []) add(loc.path, loc.line, loc.column, loc.message);

  let stylishFile: string | null = null;
  let diagnostic: string | undefined;
  for (const line of output.split(/\r?\n/)) {
    let m: RegExpExecArray | null;
    if ((m = DIAGNOSTIC_HEADER.exec(line))) diagnostic = m[1];
    if ((m = TRACEBACK.exec(line))) {
      add(m[1]!, Number(m[2]));
      continue;
    }
    if ((m = TSC.exec(line))) {
      add(m[1]!, Number(m[2]), Number(m[3]), m[4]);
      continue;
    }
    if ((m = STYLISH_HEADER.exec(line))) {
      stylishFile = m[1]!;
      continue;
    }
    if (stylishFile && (m = STYLISH_ROW.exec(line))) {
      add(stylishFile, Number(m[1]), Number(m[2]), m[4] ? `${m[3]} (${m[4]})` : m[3]);
      continue;
    }
    if (!/^\s/.test(line)) stylishFile = null;
    for (const c of line.matchAll(COLON)) {
      const rest = line.slice(c.index + c[0].length).replace(/^[\s:\-–)]+/, "");
      const isArrow = /-->\s*$/.test(line.slice(0, c.index));
      add(c[1]!, Number(c[2]), c[3] ? Number(c[3]) : undefined, isArrow ? diagnostic : rest);
    }
  }
  return out;
}

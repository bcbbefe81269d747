import type { CheckLocation } from "./types.js";

interface EslintMessage {
  line?: unknown;
  column?: unknown;
  message?: unknown;
  ruleId?: unknown;
  severity?: unknown;
}

/**
 * Locations from ESLint's JSON formatter (`eslint -f json`): an array of `{ filePath, messages: [{ line, column,
 * message, ruleId }] }`. The array may be preceded or followed by other output (npm's banner). Paths are as
 * printed (absolute); the caller makes them relative. Returns null when the output holds no such array.
 */
export function parseEslintJson(output: string): CheckLocation[] | null {
  const start = output.indexOf("[{");
  const end = output.lastIndexOf("}]");
  if (start < 0 || end < start) return null;
  let data: unknown;
  try {
    data = JSON.parse(output.slice(start, end + 2));
  } catch {
    // Brackets that are not ESLint's JSON (a stack trace, a test name): the caller falls back to the text parsers.
    return null;
  }
  if (!Array.isArray(data)) return null;
  const out: CheckLocation[] = [];
  for (const file of data as { filePath?: unknown; messages?: unknown }[]) {
    if (typeof file?.filePath !== "string" || !Array.isArray(file.messages)) return null;
    for (const m of file.messages as EslintMessage[]) {
      if (typeof m.line !== "number") continue;
      const rule = typeof m.ruleId === "string" ? ` (${m.ruleId})` : "";
      out.push({
        path: file.filePath,
        line: m.line,
        ...(typeof m.column === "number" ? { column: m.column } : {}),
        ...(typeof m.message === "string" ? { message: `${m.message}${rule}` } : {}),
      });
    }
  }
  return out;
}

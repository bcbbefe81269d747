import { stripAnsi } from "./strip-ansi.js";

/**
 * A command's output with what differs between two runs of the same failure removed (pure), so the base's failure
 * and the change's can be compared: ANSI codes, the checkout folders (`roots`, the base's and the change's),
 * temporary paths, hex addresses, durations and timestamps, line and column numbers (a compiler's line-number gutter
 * too), process ids, blank lines, and the bot's own notes on the output (lines starting `[aider-bot] `, such as the
 * network policy's refusals with their counts), which say how the command ran, not how it failed.
 *
 * @example normaliseOutput("main.go:12:3: x (0.41s) at 0x7ffd1", []) // "main.go:N:N: x (<time>) at <addr>"
 */
export function normaliseOutput(output: string, roots: readonly string[] = []): string {
  let text = stripAnsi(output);
  for (const root of [...roots].filter(Boolean).sort((a, b) => b.length - a.length))
    text = text.split(root).join("<root>");
  return (
    text
      .replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, "<date>")
      .replace(/\b\d{2}:\d{2}:\d{2}(?:\.\d+)?\b/g, "<clock>")
      .replace(/(?:\/private)?\/(?:tmp|var\/folders|var\/tmp)\/[^\s:'"`)]+/g, "<tmp>")
      .replace(/\b0x[0-9a-f]{4,}\b/gi, "<addr>")
      .replace(/\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds|m|min)\b/g, "<time>")
      .replace(/:\d+(?::\d+)?\b/g, (m) => (m.split(":").length === 3 ? ":N:N" : ":N"))
      .replace(/\b(?:line|lines|pid|PID|port) \d+/g, (m) => `${m.split(" ")[0]} N`)
      // rustc's and gcc's source excerpts number each line in a gutter (`128 |     self as u32`).
      .replace(/^(\s*)\d+(\s+\|)/gm, "$1N$2")
      .replace(/[ \t]+$/gm, "")
      .split("\n")
      .filter((l) => l.trim() && !l.startsWith("[aider-bot] "))
      .join("\n")
  );
}

/** The line of a failing command's output that says what went wrong, for the status (at most 160 characters). */
export function failureLine(output: string): string {
  const lines = stripAnsi(output)
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const said =
    lines.find((l) =>
      // An error class's name counts too (`TypeError [ERR_…]: …`, `ModuleNotFoundError: …`).
      /\b(\w*error|not found|no such|cannot|can't|could not|fatal|missing|undefined|refused)\b/i.test(l),
    ) ??
    lines.find((l) => /fail/i.test(l)) ??
    lines.at(-1) ??
    "";
  return said.length > 160 ? `${said.slice(0, 157)}…` : said;
}

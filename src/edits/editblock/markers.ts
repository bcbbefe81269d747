/** SEARCH/REPLACE markers, tolerant of 5–9 characters and surrounding whitespace (docs/behaviour.md#edit-blocks). Test trimmed lines. */
export const HEAD = /^<{5,9} SEARCH>?\s*$/;
export const DIVIDER = /^={5,9}\s*$/;
export const UPDATED = /^>{5,9} REPLACE\s*$/;

export const isHead = (line: string): boolean => HEAD.test(line.trim());
export const isDivider = (line: string): boolean => DIVIDER.test(line.trim());
export const isUpdated = (line: string): boolean => UPDATED.test(line.trim());

/** Exact shell language tags (docs/behaviour.md#shell-fences-by-exact-tag): Aider's prefix test makes ```csharp and ```shader "shell". */
const SHELL_TAGS = new Set([
  "bash",
  "sh",
  "shell",
  "zsh",
  "fish",
  "ksh",
  "csh",
  "tcsh",
  "console",
  "shellsession",
  "terminal",
  "cmd",
  "bat",
  "batch",
  "powershell",
  "pwsh",
  "ps1",
]);

/** The shell tag of a fence line like "```bash" (3 or 4 backticks), or null. */
export function shellFenceTag(line: string): string | null {
  const m = /^`{3,4}\s*([A-Za-z0-9_+-]+)\s*$/.exec(line.trim());
  if (!m) return null;
  return SHELL_TAGS.has(m[1]!.toLowerCase()) ? m[1]! : null;
}

/** A fence line: the chosen fence, or triple backticks, which models use even when asked for four (Aider #2879). */
export function isFenceLine(line: string, fenceOpen: string): boolean {
  const s = line.trim();
  return s.startsWith(fenceOpen) || s.startsWith("```");
}

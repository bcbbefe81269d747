/** SEARCH/REPLACE markers, tolerant of 5–9 characters and surrounding whitespace (AIDER.md §2.1.1). */
export const HEAD = /^<{5,9} SEARCH>?\s*$/;
export const DIVIDER = /^={5,9}\s*$/;
export const UPDATED = /^>{5,9} REPLACE\s*$/;

/** Exact shell language tags (AIDER.md A.3): ```csharp and ```shader are code, not shell. */
const SHELL_TAGS = new Set(["bash", "sh", "shell", "zsh", "console", "cmd", "batch", "powershell", "ps1", "pwsh", "fish", "ksh", "csh", "tcsh", "shellsession"]);

/** The shell tag of a fence line like "```bash", or null. */
export function shellFenceTag(line: string): string | null {
  const m = /^(`{3,4})\s*([A-Za-z0-9_+-]+)\s*$/.exec(line.trim());
  if (!m) return null;
  return SHELL_TAGS.has(m[2]!.toLowerCase()) ? m[2]! : null;
}

export const isFenceLine = (line: string, fenceOpen: string): boolean => {
  const s = line.trim();
  return s.startsWith(fenceOpen) || s.startsWith("```");
};

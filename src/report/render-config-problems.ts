import { configMarker } from "../github/markers.js";

/**
 * The comment listing what is wrong with `.github/aider.yml` (pure): every problem with its key path, so the fix
 * needs no guessing. `renderConfigProblems([{ path: "test", message: "must be a string" }])`
 */
export function renderConfigProblems(problems: readonly { path: string; message: string }[]): string {
  const list = problems.map((p) => `- \`${p.path || "(file)"}\`: ${p.message}`).join("\n");
  return [
    configMarker,
    "😕 I can't run: `.github/aider.yml` on the default branch is invalid.",
    "",
    list,
    "",
    "Fix the file on the default branch and send the command again. Every key is optional; the README lists them with their defaults.",
  ].join("\n");
}

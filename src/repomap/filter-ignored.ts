import ignore from "ignore";
import { createConfinedReader } from "../workspace/confined-reader.js";

/**
 * Drop the files that `<root>/.aiderignore` (gitignore syntax) excludes. No such file: all files are kept.
 * Example: `await filterIgnored("/repo", ["a.ts", "gen/b.ts"])` with `.aiderignore` = `gen/` → `["a.ts"]`.
 */
export async function filterIgnored(
  root: string,
  files: readonly string[],
  ignoreFile = ".aiderignore",
): Promise<string[]> {
  // A committed `.aiderignore` may be a link out of the checkout; read it like any checkout file.
  const got = createConfinedReader(root).read(ignoreFile);
  return filterByIgnoreText(got.ok ? got.content.toString("utf8") : null, files);
}

/** The files that an ignore file of this text (gitignore syntax) keeps; null (no such file) keeps all (pure). */
export function filterByIgnoreText(text: string | null, files: readonly string[]): string[] {
  if (text === null) return [...files];
  const ig = ignore().add(text);
  return files.filter((f) => !ig.ignores(f));
}

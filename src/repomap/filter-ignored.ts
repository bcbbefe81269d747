import { readFile } from "node:fs/promises";
import path from "node:path";
import ignore from "ignore";

/**
 * Drop the files that `<root>/.aiderignore` (gitignore syntax) excludes. No such file: all files are kept.
 * Example: `await filterIgnored("/repo", ["a.ts", "gen/b.ts"])` with `.aiderignore` = `gen/` → `["a.ts"]`.
 */
export async function filterIgnored(root: string, files: readonly string[], ignoreFile = ".aiderignore"): Promise<string[]> {
  let rules: string;
  try {
    rules = await readFile(path.join(root, ignoreFile), "utf8");
  } catch {
    return [...files];
  }
  const ig = ignore().add(rules);
  return files.filter((f) => !ig.ignores(f));
}

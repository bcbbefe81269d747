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
  if (!got.ok) return [...files];
  const ig = ignore().add(got.content.toString("utf8"));
  return files.filter((f) => !ig.ignores(f));
}

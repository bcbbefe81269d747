import { mkdtemp } from "node:fs/promises";
import path from "node:path";

/**
 * A new folder named `prefix…` outside `/tmp`: under the project folder, or under `/var/tmp` when the project itself
 * was cloned below `/tmp` (as CI may). For files a sandboxed command or a PATH filter must still see: bubblewrap gives
 * each command a private `/tmp`, and the tools shelf's install drops `/tmp` from PATH.
 */
export function dirOutsideTmp(prefix: string): Promise<string> {
  const cwd = process.cwd();
  const base = cwd === "/tmp" || cwd.startsWith("/tmp/") ? "/var/tmp" : cwd;
  return mkdtemp(path.join(base, prefix));
}

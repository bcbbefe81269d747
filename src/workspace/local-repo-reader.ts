import { readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { createConfinedReader } from "./confined-reader.js";

/** Largest file the check discovery reads from a checkout. */
const MAX_FILE_BYTES = 512_000;

/**
 * A local checkout for the check discovery (src/checks/discover: the `RepoReader` shape), for `aider-bot checks` and
 * the CLI's `run`. Files are read through the confined reader (a link out of the checkout or into `.git` is absent);
 * folders are listed only when their real path is inside the checkout.
 */
export function createLocalRepoReader(root: string) {
  const reader = createConfinedReader(root, { maxBytes: MAX_FILE_BYTES });
  return {
    async list(dir: string): Promise<string[]> {
      if (dir.split("/").some((p) => p === ".." || p === ".git")) return [];
      try {
        const realRoot = await realpath(root);
        const real = await realpath(path.join(root, dir));
        if (real !== realRoot && !real.startsWith(`${realRoot}${path.sep}`)) return [];
        const entries = await readdir(real, { withFileTypes: true });
        return entries
          .filter((e) => e.name !== ".git" && (e.isFile() || e.isDirectory()))
          .map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
      } catch {
        return [];
      }
    },
    async read(file: string): Promise<string | null> {
      const got = reader.read(file);
      return got.ok ? got.content.toString("utf8") : null;
    },
  };
}

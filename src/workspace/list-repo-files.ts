import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import type { Exec } from "../exec/types.js";
import { createConfinedReader, type ConfinedReader } from "./confined-reader.js";

export interface ListRepoFilesOptions {
  /** With an exec and a `.git`, git lists the files (tracked + untracked-not-ignored). */
  exec?: Exec;
  /** Files larger than this are skipped when walking (default 1 MB): generated or data files, not code. */
  maxFileBytes?: number;
}

/** Never descended into: VCS data, dependencies and our own cache. */
const SKIP_DIRS = new Set([".git", "node_modules", ".aider-bot-cache", ".hg", ".svn"]);
const BINARY_EXT =
  /\.(png|jpe?g|gif|webp|ico|bmp|pdf|zip|gz|tgz|bz2|xz|7z|jar|class|so|dylib|dll|exe|o|a|wasm|woff2?|ttf|otf|mp[34]|mov|avi|sqlite|db|bin|pyc)$/i;

/**
 * Repo-relative files under `root`, sorted. In a git checkout (and with `exec`): `git ls-files --cached --others
 * --exclude-standard`. Otherwise a walk that applies every `.gitignore` it meets (nested ones relative to their
 * directory), skipping `.git`, `node_modules`, binary-looking and huge files.
 */
export async function listRepoFiles(root: string, options: ListRepoFilesOptions = {}): Promise<string[]> {
  if (options.exec && (await exists(path.join(root, ".git")))) {
    const res = await options.exec.run({
      command: "git",
      args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
      cwd: root,
      maxOutputBytes: 200_000_000,
    });
    if (res.exitCode === 0) {
      return [...new Set(res.stdout.split("\0").filter((f) => f && !f.startsWith(".aider-bot-cache/")))].sort();
    }
  }
  const out: string[] = [];
  await walk(createConfinedReader(root), "", [], options.maxFileBytes ?? 1_000_000, out);
  return out.sort();
}

interface Rules {
  dir: string;
  ig: Ignore;
}

async function walk(
  reader: ConfinedReader,
  rel: string,
  rules: Rules[],
  maxBytes: number,
  out: string[],
): Promise<void> {
  const root = reader.root;
  const abs = path.join(root, rel);
  const here = readGitignore(reader, rel);
  const active = here ? [...rules, here] : rules;
  const entries = await readdir(abs, { withFileTypes: true });
  for (const e of entries) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (SKIP_DIRS.has(e.name) || ignored(active, `${child}/`)) continue;
      await walk(reader, child, active, maxBytes, out);
    } else if (e.isFile()) {
      if (BINARY_EXT.test(e.name) || ignored(active, child)) continue;
      if ((await stat(path.join(root, child))).size > maxBytes) continue;
      out.push(child);
    }
  }
}

function ignored(rules: Rules[], rel: string): boolean {
  return rules.some((r) => {
    const sub = r.dir ? rel.slice(r.dir.length + 1) : rel;
    return (!r.dir || rel.startsWith(`${r.dir}/`)) && sub !== "" && r.ig.ignores(sub);
  });
}

/** A `.gitignore` is checkout content like any other: a link out of the checkout is not followed. */
function readGitignore(reader: ConfinedReader, rel: string): Rules | null {
  const got = reader.read(rel ? `${rel}/.gitignore` : ".gitignore");
  return got.ok ? { dir: rel, ig: ignore().add(got.content.toString("utf8")) } : null;
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    // Any stat failure (ENOENT mostly) means "no .git here": the walk below lists the files instead.
    return false;
  }
}

import { readFile } from "node:fs/promises";
import path from "node:path";
import type { FakeRepo } from "./fake-github-state.js";
import type { RouteContext } from "./fake-route-table.js";

/** A branch's commit in a fake repository, or null when there is no such branch. */
export async function branchSha(ctx: RouteContext, repo: FakeRepo, ref: string): Promise<string | null> {
  const fast = await readBranchRef(ctx.bareDir(repo), ref);
  if (fast !== undefined) return fast;
  const r = await ctx.exec.run({
    command: "git",
    args: ["rev-parse", "--verify", `refs/heads/${ref}`],
    cwd: ctx.bareDir(repo),
  });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

/**
 * A branch's commit read from the bare repository's files (loose ref, else packed-refs): the fake answers API calls
 * on one event loop, and a git process per call (~20 ms of spawn each) made it the bottleneck of the storm bench.
 * `undefined` when the files do not say (a symbolic ref, an odd name): the caller asks git.
 */
async function readBranchRef(bare: string, branch: string): Promise<string | null | undefined> {
  if (!/^[\w./-]+$/.test(branch) || branch.includes("..")) return undefined;
  const loose = await readFile(path.join(bare, "refs/heads", branch), "utf8").catch(() => null);
  if (loose !== null) return /^[0-9a-f]{40}$/.test(loose.trim()) ? loose.trim() : undefined;
  const packed = await readFile(path.join(bare, "packed-refs"), "utf8").catch(() => "");
  for (const line of packed.split("\n")) {
    const [sha, name] = line.split(" ");
    if (name === `refs/heads/${branch}` && sha !== undefined && /^[0-9a-f]{40}$/.test(sha)) return sha;
  }
  return null;
}

/** File contents by commit and path: immutable, so kept for the fake's life (see readBranchRef for why). */
const contentCache = new WeakMap<FakeRepo, Map<string, string | null>>();

/** A file (or, as `git show` prints it, a folder) at a branch or commit; null when there is none. */
export async function fileAt(ctx: RouteContext, repo: FakeRepo, ref: string, file: string): Promise<string | null> {
  const sha = /^[0-9a-f]{40}$/.test(ref) ? ref : await readBranchRef(ctx.bareDir(repo), ref);
  const cache = contentCache.get(repo) ?? new Map<string, string | null>();
  contentCache.set(repo, cache);
  const key = sha ? `${sha}:${file}` : null;
  const cached = key === null ? undefined : cache.get(key);
  if (cached !== undefined) return cached;
  const out = await ctx.exec.run({ command: "git", args: ["show", `${sha ?? ref}:${file}`], cwd: ctx.bareDir(repo) });
  const text = out.exitCode === 0 ? out.stdout : null;
  if (key) cache.set(key, text);
  return text;
}

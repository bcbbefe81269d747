import { mkdirSync } from "node:fs";
import path from "node:path";
import { headCommit } from "./git-commit-ahead.js";
import { cloneFromMirror, fetchIntoMirror, type MirrorPlace } from "./git-mirror.js";
import type { GitRun } from "./git-runner.js";

/** What cloning needs of a git object's state (create-git): its runner and the facts it keeps per checkout. */
export interface CloneState {
  run: GitRun;
  setCloneUrl(dir: string, url: string): void;
  /** Whether HEAD is the one commit of a depth-1 clone this object made. */
  setOnlyCommit(dir: string, only: boolean): void;
}

/** Clone a repository, or adopt a checkout made elsewhere: either way this object then knows its clone URL. */
export function cloneOperations({ run, setCloneUrl, setOnlyCommit }: CloneState) {
  return {
    /**
     * Shallow clone of one branch into `dir` (absent or empty). Default depth 50; `depth: 0` clones everything. With
     * `mirror` and depth 1, the checkout is made from the repository's mirror in the cache (see `cloneFromMirror`),
     * and cloned plainly when that cannot be done (`onFallback` says why).
     *
     * `onTree(commit)`: a checkout made from the mirror has git's side (objects, HEAD) complete before its files are
     * written; it is told then, so what needs no work tree can start meanwhile. A plain clone tells too when asked:
     * it clones without writing the files (`--no-checkout`), tells, then writes them with `read-tree -u --reset`, as
     * `git clone` writes them (one git process more). Resolves, once the files are written, to the commit whose
     * files were written, or null when none was told. A caller told of one commit compares: when the mirror's
     * checkout failed after telling, a plain clone of the branch's tip by then replaced it (and tells nothing more).
     */
    async clone(req: {
      url: string;
      branch: string;
      dir: string;
      token?: string;
      depth?: number;
      mirror?: MirrorPlace & { onFallback?(reason: string): void };
      onTree?(commit: string): void;
      /** A fetch into the mirror made for this clone ahead of it: see `cloneFromMirror`'s `fetched`. */
      fetched?: Promise<string | null>;
    }): Promise<{ tree: string | null }> {
      const dir = path.resolve(req.dir);
      mkdirSync(path.dirname(dir), { recursive: true }); // synchronous: see cloneFromMirror
      const depth = req.depth ?? 50;
      // Facts of the checkout's git, true from the moment the run is told of its commit (before, so that nothing it
      // starts then reads history a depth-1 clone does not have): what it was cloned from, and its one commit.
      const known = (only: boolean) => {
        setCloneUrl(dir, req.url);
        setOnlyCommit(dir, only);
      };
      let told: string | null = null;
      if (req.mirror && depth === 1) {
        const made = await cloneFromMirror(
          run,
          {
            url: req.url,
            branch: req.branch,
            dir,
            ...(req.token ? { token: req.token } : {}),
            ...(req.fetched ? { fetched: req.fetched } : {}),
            onTree: (commit) => {
              told = commit;
              known(true);
              req.onTree?.(commit);
            },
          },
          req.mirror,
        );
        if (made.ok) {
          known(true);
          return { tree: told };
        }
        req.mirror.onFallback?.(made.reason);
      }
      return plainClone(run, { ...req, dir, depth }, { tell: told === null, cloned: () => known(depth === 1) });
    },

    /**
     * The branch's tip fetched into the repository's mirror for a clone that will follow (see `fetchIntoMirror`):
     * the tip, or null when nothing was fetched.
     */
    fetchIntoMirror: (req: { url: string; branch: string; token?: string }, place: MirrorPlace) =>
      fetchIntoMirror(run, req, place),

    /**
     * Work in an existing checkout of `url` (a GitHub Actions workflow's own checkout) as if it had been cloned here:
     * pushes and fetches go to `url`, from a clean git dir as always. The caller has checked the checkout's origin.
     */
    adopt(dir: string, url: string): void {
      setCloneUrl(dir, url);
    },
  };
}

/**
 * `git clone` of one branch (shallow unless `depth` is 0). A caller that can start on the commit before its files
 * exist (`onTree`) is told it as the mirror's checkout tells it: the clone without its checkout, HEAD's commit read
 * from `.git`, then the files written by `read-tree -u --reset`, as `git clone` writes them. `cloned()` runs once the
 * clone's git exists, before any telling; `tell` is false when a mirror's checkout already told of a commit and
 * failed (the caller then compares the two by the result's `tree`).
 */
async function plainClone(
  run: GitRun,
  req: { url: string; branch: string; dir: string; token?: string; depth: number; onTree?(commit: string): void },
  after: { tell: boolean; cloned(): void },
): Promise<{ tree: string | null }> {
  const shallow = req.depth > 0 ? ["--depth", String(req.depth)] : [];
  const early = req.onTree ? ["--no-checkout"] : [];
  const branch = ["--branch", req.branch, "--single-branch", "--no-tags"];
  await run(path.dirname(req.dir), ["clone", "--quiet", ...early, ...shallow, ...branch, "--", req.url, req.dir], {
    token: req.token,
  });
  after.cloned();
  if (!req.onTree) return { tree: null };
  const commit = headCommit(req.dir);
  if (commit && after.tell) req.onTree(commit);
  await run(req.dir, ["read-tree", "-u", "--reset", commit ?? "HEAD"]);
  return { tree: commit };
}

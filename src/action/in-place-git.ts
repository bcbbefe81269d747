import path from "node:path";
import type { Logger } from "pino";
import type { RunGit } from "../run/run-ports.js";
import type { Git } from "../workspace/create-git.js";

/** Same repository whatever the spelling: `https://github.com/o/r`, `…/o/r.git`, `…/O/R/`. */
export function sameRepoUrl(a: string, b: string): boolean {
  const norm = (u: string) =>
    u
      .trim()
      .replace(/\/+$/, "")
      .replace(/\.git$/, "")
      .toLowerCase();
  return norm(a) === norm(b);
}

/**
 * Why the workflow's checkout cannot be used in place for `branch` of `url`, or null when it can: it must be on
 * that branch, cloned from that repository, without tracked changes, and with no local git config that would send
 * the token elsewhere or add credentials of its own (actions/checkout's persisted `extraheader`).
 */
export async function workspaceMismatch(
  git: Git,
  workspace: string,
  want: { url: string; branch: string },
): Promise<string | null> {
  const branch = await git.run(workspace, ["symbolic-ref", "--quiet", "--short", "HEAD"], { allowFail: true });
  if (!branch.ok) return "the checkout is not a git repository on a branch (detached HEAD)";
  if (branch.stdout.trim() !== want.branch)
    return `the checkout is on \`${branch.stdout.trim()}\`, the run needs \`${want.branch}\``;
  const origin = await git.run(workspace, ["remote", "get-url", "origin"], { allowFail: true });
  if (!origin.ok || !sameRepoUrl(origin.stdout.trim(), want.url)) return "the checkout's origin is not this repository";
  const dirty = await git.run(workspace, ["status", "--porcelain", "--untracked-files=no"], { allowFail: true });
  if (!dirty.ok || dirty.stdout.trim() !== "") return "the checkout has uncommitted changes to tracked files";
  // Push and fetch never read the checkout's config (they run from a clean git dir), but a checkout that persisted
  // credentials or redirects was set up for another purpose: clone afresh rather than work beside them.
  const local = await git.run(workspace, ["config", "--local", "--list", "--name-only"], { allowFail: true });
  if (local.stdout.split("\n").some((key) => REDIRECTING.test(key.trim()))) {
    return "the checkout's git config carries credentials or redirects (check out with persist-credentials: false)";
  }
  return null;
}

/** Local config keys that carry credentials or send requests somewhere other than the clone URL. */
const REDIRECTING =
  /^(url\..+\.(insteadof|pushinsteadof)|remote\.[^.]+\.(pushurl|proxy)|http\.(.+\.)?(proxy|extraheader)|core\.(gitproxy|sshcommand)|credential\..*)$/i;

/**
 * The run's git port on a runner: when the workflow's checkout (GITHUB_WORKSPACE) is already the branch the run
 * changes, "cloning" adopts it instead, so lint and tests run where the workflow's setup steps installed things;
 * otherwise it clones into the run's temp folder like the App. `resolve` maps the run's checkout path to the folder
 * actually used (the coder works there too).
 */
export function createInPlaceGit(
  git: Git,
  options: { workspace: string; logger: Logger },
): { runGit: RunGit; resolve(dir: string): string } {
  const adopted = new Map<string, string>();
  const resolve = (dir: string) => adopted.get(path.resolve(dir)) ?? dir;
  const runGit: RunGit = {
    async clone(r) {
      const why = await workspaceMismatch(git, options.workspace, r);
      if (why === null) {
        adopted.set(path.resolve(r.dir), options.workspace);
        git.adopt(options.workspace, r.url);
        options.logger.info({ branch: r.branch, dir: options.workspace }, "working in the workflow's checkout");
        return;
      }
      options.logger.info(
        { branch: r.branch, reason: why },
        "cloning the branch: the workflow's checkout cannot be used",
      );
      await git.clone({ ...r, depth: 50 });
    },
    headSha: (dir) => git.headSha(resolve(dir)),
    createBranch: (dir, branch) => git.createBranch(resolve(dir), branch),
    push: (r) => git.push({ ...r, dir: resolve(r.dir) }),
    commitPaths: async (r) =>
      (await git.commit(resolve(r.dir), { paths: r.paths, subject: r.subject, body: r.body, trailers: r.trailers }))
        .sha,
    recentCommits: (dir, n) => git.recentCommits(resolve(dir), n),
    revert: (r) => git.revert(resolve(r.dir), r.sha, r.trailers),
    formatPatch: (dir, base) => git.formatPatch(resolve(dir), base),
    // The Action's commits go through GitHub's API with its token too (signed where GitHub signs them).
    readCommit: (dir, sha) => git.readCommit(resolve(dir), sha),
    // The workflow's checkout outlives the run: it ends on GitHub's commit, as after a push. Best effort: the commit
    // is made, so a failed fetch is logged, not the run's failure.
    adoptRemoteCommit: (r) =>
      git
        .adoptRemoteCommit({ ...r, dir: resolve(r.dir) })
        .catch((error: unknown) =>
          options.logger.warn({ err: error, branch: r.branch }, "could not move the checkout to GitHub's commit"),
        ),
  };
  return { runGit, resolve };
}

import path from "node:path";
import type { Exec } from "../exec/types.js";
import { commitPaths } from "./git-commit.js";
import { diffStats, diffText } from "./git-diff.js";
import { resolveIdentity, type GitIdentity } from "./git-identity.js";
import { cleanTransport, pushBranch, type PushRequest } from "./git-push.js";
import { readCommitChanges } from "./read-commit-changes.js";
import { openCleanGitDir } from "./git-clean-dir.js";
import { GitError } from "./git-errors.js";
import { cloneOperations } from "./git-clone.js";
import { changeHistory } from "./git-change-history.js";
import { currentBranch, defaultRemoteBranch, isAncestor, log, statusPorcelain, symrefHead } from "./git-queries.js";
import { prepareCommit, type OfferedDiff, type PreparedCommit } from "./git-prepared-commit.js";
import { revertCommit } from "./git-revert.js";
import { clearWorkTree, restoreWorkTree } from "./work-tree-files.js";
import { createSecretRedactor } from "../security/redact-secrets.js";
import { createGitRunner, type GitRun } from "./git-runner.js";
import type { CommitRequest, CommitResult } from "./types.js";

/** Bytes of file contents read for one API commit; past it, none are read (the commit goes by git push). */
const API_COMMIT_READ_LIMIT = 30 * 1024 * 1024;

export { gitAuthEnv as authEnv } from "./auth-env.js";
export type { GitIdentity } from "./git-identity.js";
export type { PreparedCommit } from "./git-prepared-commit.js";

/** Transports git may use: no `ext::` (runs commands) or `fd::`, whatever URL a config or event carries. */
const ALLOWED_PROTOCOLS = "https:http:ssh:git:file";

/** What the parts of {@link createGit} share: the runner, the committer and what is known about each checkout. */
interface GitState {
  run: GitRun;
  who(dir: string): Promise<GitIdentity>;
  /** The URL a checkout was cloned from (token-bearing commands go there, never to a remote its config names). */
  cloneUrl(dir: string): string | undefined;
  setCloneUrl(dir: string, url: string): void;
  /** The commit this object last made in a checkout, while nothing else it ran could have moved HEAD since. */
  madeHead(dir: string): string | undefined;
  forgetHead(dir: string): void;
  remember(dir: string, sha: string): void;
  /** Whether HEAD is still the one commit of a depth-1 clone this object made: its history is then known to be empty. */
  onlyCommit(dir: string): boolean;
  setOnlyCommit(dir: string, only: boolean): void;
  /** Applied to every commit message (the driver's redactor). */
  redact(text: string): string;
  /** Commits in this object's clones are read as git would make them (git-commit-ahead); `home`: its processes' HOME. */
  readsAhead?: { home: string | undefined };
}

type GitOptions = Pick<GitState, "readsAhead"> & { redact?: (text: string) => string };

/**
 * Every git operation the coder and the App need, over the project's single exec door with an explicit
 * environment (no ambient GIT_*, no prompts, tokens only as per-command headers, output redacted).
 * `committer` is the bot; without it commits use the repository's own identity, else a bot default. `redact` is
 * the driver's redactor (its composition root's), applied to every commit message; without one, only the secret
 * shapes every redactor knows are removed.
 * `const git = createGit(exec, { name: "aider-bot[bot]", email: "…" }, { redact }); await git.commit(dir, req)`
 */
export function createGit(exec: Exec, committer?: GitIdentity, options: GitOptions = {}) {
  // With a configured committer, any command (also through `run`) commits as the bot by default.
  const identityArgs = committer ? ["-c", `user.name=${committer.name}`, "-c", `user.email=${committer.email}`] : [];
  const run = createGitRunner(exec, { GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS }, identityArgs);
  // Clone URLs by checkout: token-bearing commands go to this URL from a clean git dir, never to a remote the
  // checkout's (repository-writable) config names.
  const cloneUrls = new Map<string, string>();
  // The commit this object last made in a checkout, while nothing else it ran could have moved HEAD since: `push`
  // then needs no `rev-parse HEAD`. Any other command through this object forgets it.
  const madeHead = new Map<string, string>();
  // Checkouts whose HEAD is the single commit of a depth-1 clone, while no command of this object could have added
  // history: `changeHistory` there would list nothing (the commit has no visible parent), so it starts no process.
  const onlyCommit = new Set<string>();
  const state: GitState = {
    run,
    redact: options.redact ?? createSecretRedactor().redact,
    ...(options.readsAhead ? { readsAhead: options.readsAhead } : {}),
    who: (dir) => resolveIdentity(run, dir, committer),
    cloneUrl: (dir) => cloneUrls.get(path.resolve(dir)),
    setCloneUrl: (dir, url) => void cloneUrls.set(path.resolve(dir), url),
    madeHead: (dir) => madeHead.get(path.resolve(dir)),
    forgetHead: (dir) => {
      madeHead.delete(path.resolve(dir));
      onlyCommit.delete(path.resolve(dir));
    },
    remember: (dir, sha) => void madeHead.set(path.resolve(dir), sha),
    onlyCommit: (dir) => onlyCommit.has(path.resolve(dir)),
    setOnlyCommit: (dir, only) =>
      void (only ? onlyCommit.add(path.resolve(dir)) : onlyCommit.delete(path.resolve(dir))),
  };
  return {
    /** Any git command (same env, redaction and error rules); for callers with needs not covered below. */
    run: ((cwd, args, options) => {
      state.forgetHead(cwd);
      return run(cwd, args, options);
    }) as typeof run,
    ...cloneOperations(state),
    ...remoteOperations(state),
    ...queryOperations(state),
    ...commitOperations(state),
  };
}

export type Git = ReturnType<typeof createGit>;

/** Fetch, push and ask the remote: token-bearing commands go to the clone URL from a clean git dir. */
function remoteOperations({ run, who, cloneUrl, madeHead, forgetHead }: GitState) {
  /** Fetch one remote branch into `refs/remotes/origin/<branch>`; returns its tip. */
  const fetch = (req: FetchRequest): Promise<string> => fetchBranch({ run, cloneUrl, forgetHead }, req);

  return {
    fetch,
    async defaultRemoteBranch(dir: string, opts?: { token?: string; remote?: string }): Promise<string | null> {
      const local = await defaultRemoteBranch(run, dir, {
        ...(opts?.remote ? { remote: opts.remote } : {}),
        localOnly: !!opts?.token,
      });
      if (local !== null || !opts?.token) return local;
      const clean = await openCleanGitDir(run, dir);
      try {
        const url = cloneUrl(dir);
        if (!url) throw new GitError("Refusing to send credentials: this checkout's clone URL is not known.", "");
        return symrefHead(
          (await clean.run(["ls-remote", "--symref", "--", url, "HEAD"], { token: opts.token, allowFail: true }))
            .stdout,
        );
      } finally {
        await clean.close();
      }
    },

    /** Push HEAD to `branch` without force; if the remote moved, fetch + rebase once and push again. */
    async push(req: PushRequest): Promise<void> {
      const url = cloneUrl(req.dir);
      const head = madeHead(req.dir);
      forgetHead(req.dir);
      await pushBranch(run, req, {
        committer: await who(req.dir),
        ...(url ? { cloneUrl: url } : {}),
        ...(head ? { head } : {}),
      });
    },

    /**
     * After GitHub made the commit `oid` (the same tree as HEAD) on `branch`, fetch it and move HEAD there
     * without touching the files, so the checkout matches the remote (a workflow's later steps see GitHub's commit).
     */
    async adoptRemoteCommit(req: { dir: string; branch: string; oid: string; token: string }): Promise<void> {
      await fetch({ dir: req.dir, branch: req.branch, token: req.token });
      await run(req.dir, ["reset", "--quiet", "--soft", req.oid]);
    },
  };
}

/** Read-only questions about a checkout: its HEAD, branch, status, history and diffs. */
function queryOperations({ run, onlyCommit }: GitState) {
  return {
    async headSha(dir: string): Promise<string> {
      return (await run(dir, ["rev-parse", "HEAD"])).stdout.trim();
    },

    currentBranch: (dir: string) => currentBranch(run, dir),
    statusPorcelain: (dir: string) => statusPorcelain(run, dir),
    log: (dir: string, n: number, rev?: string) => log(run, dir, n, rev),
    /** Recent commits as the paths each changed, for the map's co-change signal; [] without history. */
    changeHistory: async (dir: string, n?: number): Promise<string[][]> =>
      onlyCommit(dir) ? [] : changeHistory(run, dir, n),
    isAncestor: (dir: string, ancestor: string, descendant: string) => isAncestor(run, dir, ancestor, descendant),

    /** Added/removed lines per path between two revisions, or `from` and the work tree (untracked counted) when `to` is omitted. */
    diffStats: (dir: string, from: string, to?: string, paths: readonly string[] = []) =>
      diffStats(run, dir, from, to, paths),

    /** "Added <file>" lines plus the diff against HEAD of these paths, new files included (for commit messages). */
    diffText: (dir: string, paths: readonly string[]) => diffText(run, dir, paths),

    /** The newest commits, `{ sha, message }` (see `log` for author and subject). */
    async recentCommits(dir: string, n: number): Promise<{ sha: string; message: string }[]> {
      return (await log(run, dir, n)).map(({ sha, message }) => ({ sha, message }));
    },

    /** A commit's parent, message, changes and new contents, for GitHub's commit API. */
    readCommit: (dir: string, sha: string, maxBytes = API_COMMIT_READ_LIMIT) =>
      readCommitChanges(run, dir, sha, maxBytes),

    /** The commits after `base` as an mbox patch series (offered when a push is impossible). */
    async formatPatch(dir: string, base: string): Promise<string> {
      return (await run(dir, ["format-patch", "--stdout", `${base}..HEAD`])).stdout;
    },
  };
}

/** Branch, commit and revert: each remembers (or forgets) the HEAD this object made, for `push`. */
function commitOperations(state: GitState) {
  const { run, who, forgetHead, remember, onlyCommit, setOnlyCommit, redact, cloneUrl, readsAhead } = state;
  /** A new branch at HEAD: still the same commit, so a depth-1 clone's history stays known to be empty. */
  const branchHere = async (dir: string, branch: string) => {
    const only = onlyCommit(dir);
    forgetHead(dir);
    await run(dir, ["checkout", "--quiet", "-b", branch]);
    setOnlyCommit(dir, only);
  };
  return {
    /** Create `branch` at `startPoint` (default HEAD) and check it out. */
    async checkoutNewBranch(dir: string, branch: string, startPoint?: string): Promise<void> {
      if (!startPoint) return branchHere(dir, branch);
      forgetHead(dir);
      await run(dir, ["checkout", "--quiet", "-b", branch, startPoint]);
    },

    /** Same as `checkoutNewBranch(dir, branch)`; kept for existing callers. */
    createBranch: branchHere,

    /** Stage exactly these paths (added, modified or deleted) and commit them; other dirty files stay dirty. */
    async commit(dir: string, req: CommitRequest): Promise<CommitResult> {
      forgetHead(dir);
      const result = await commitPaths(run, dir, req, await who(dir), redact);
      remember(dir, result.sha);
      return result;
    },

    /**
     * Sort `paths` into tracked and new, stage the new ones and diff them all against HEAD; then `commit` them
     * (see `prepareCommit`). The diff is "" when nothing changed. For a run that commits: fewer processes than
     * `diffStats` + `diffText` + `commit`.
     */
    async prepareCommit(
      dir: string,
      paths: readonly string[],
      knownTracked?: ReadonlySet<string>,
      offered?: OfferedDiff,
      executables?: ReadonlySet<string>,
    ): Promise<PreparedCommit> {
      forgetHead(dir);
      // Only in a clone this object made, whose `.git` is the app's (a user's checkout may have hooks).
      const ahead = readsAhead && executables && cloneUrl(dir) ? { executables, home: readsAhead.home } : undefined;
      const prepared = await prepareCommit(run, dir, paths, () => who(dir), redact, knownTracked, offered, ahead);
      return {
        diff: prepared.diff,
        ...(prepared.ahead ? { ahead: prepared.ahead } : {}),
        async commit(req) {
          forgetHead(dir);
          const result = await prepared.commit(req);
          remember(dir, result.sha);
          return result;
        },
      };
    },

    /**
     * Remove the checkout's files, keeping `.git` (see work-tree-files): once a commit's contents are read for
     * GitHub's API, the files are not needed unless that fails and git must push instead (then `restoreWorkTree`).
     */
    clearWorkTree: (dir: string) => clearWorkTree(dir),

    /** HEAD's files written again after `clearWorkTree`; the HEAD this object made stays known. */
    async restoreWorkTree(dir: string): Promise<void> {
      await restoreWorkTree(run, dir);
    },

    /** `git revert` one commit as a new commit with these trailers; refuses on a dirty checkout. Returns the new sha. */
    async revertCommit(dir: string, sha: string, trailers: readonly string[] = []): Promise<string> {
      forgetHead(dir);
      return revertCommit(run, dir, sha, await who(dir), redact, trailers);
    },

    /** Same as `revertCommit`; kept for existing callers. */
    async revert(dir: string, sha: string, trailers: readonly string[]): Promise<string> {
      forgetHead(dir);
      return revertCommit(run, dir, sha, await who(dir), redact, trailers);
    },
  };
}

interface FetchRequest {
  dir: string;
  branch: string;
  token?: string;
  depth?: number;
  remote?: string;
  /**
   * Fetch `deepen` more commits below the checkout's shallow boundary instead of cutting at `depth` from the tip: a
   * tip the checkout already has is not fetched again by `depth`, so its history would stay as shallow as it was.
   */
  deepen?: number;
  /** The local ref the tip is stored in (default: `refs/remotes/<remote>/<branch>`, the branch's tracking ref). */
  into?: string;
  /** Aborting kills the fetch under way (its transport's processes too); the fetch then fails. */
  signal?: AbortSignal;
}

/** `git fetch` of one branch into its tracking ref: with a token, from a clean git dir to the clone URL. */
async function fetchBranch(
  { run, cloneUrl, forgetHead }: Pick<GitState, "run" | "cloneUrl" | "forgetHead">,
  req: FetchRequest,
): Promise<string> {
  forgetHead(req.dir);
  const remote = req.remote ?? "origin";
  const tracking = req.into ?? `refs/remotes/${remote}/${req.branch}`;
  const depth = req.deepen ? ["--deepen", String(req.deepen)] : req.depth ? ["--depth", String(req.depth)] : [];
  if (req.token) {
    const transport = await cleanTransport(run, req.dir, cloneUrl(req.dir), req.token);
    try {
      const tip = await transport.fetch(req.branch, depth, req.signal);
      await run(req.dir, ["update-ref", tracking, tip]);
      return tip;
    } finally {
      await transport.close();
    }
  }
  await run(req.dir, ["fetch", "--quiet", "--no-tags", ...depth, remote, `+refs/heads/${req.branch}:${tracking}`], {
    token: req.token,
    ...(req.signal ? { signal: req.signal } : {}),
  });
  return (await run(req.dir, ["rev-parse", tracking])).stdout.trim();
}

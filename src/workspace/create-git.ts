import type { Exec } from "../exec/types.js";
import { GitError, HookRejectedError, PushRejectedError } from "./git-errors.js";
import { redactSecrets } from "./redact.js";
import type { CommitRequest, CommitResult } from "./types.js";

export interface GitIdentity {
  name: string;
  email: string;
}

/** Env that makes git send the token as an HTTP header: never in a URL, argv or `.git/config` (STACK.md "Git"). */
export function authEnv(token: string | undefined): Record<string, string> {
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "/bin/echo" };
  if (!token) return env;
  return {
    ...env,
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "http.extraHeader",
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`,
  };
}

/**
 * Git over the project's single exec door, with an explicit environment (no ambient GIT_* variables, no prompts).
 * `committer` is the bot; commit authors default to it too.
 */
export function createGit(exec: Exec, committer?: GitIdentity) {
  // Without a committer (the CLI on a user's checkout) git uses the repository's own user.name/user.email.
  const identity = committer ? ["-c", `user.name=${committer.name}`, "-c", `user.email=${committer.email}`] : [];
  const identityEnv: Record<string, string> = committer ? { GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email } : {};
  async function git(cwd: string, args: string[], opts: { token?: string; allowFail?: boolean; env?: Record<string, string>; input?: string } = {}) {
    const r = await exec.run({
      command: "git",
      args: [...identity, "-c", "core.quotePath=false", ...args],
      cwd,
      env: { ...authEnv(opts.token), ...identityEnv, ...opts.env },
      timeoutMs: 300_000,
      ...(opts.input !== undefined ? { input: opts.input } : {}),
    });
    const output = redactSecrets(r.output || r.spawnError || "", [opts.token]);
    if (r.exitCode !== 0 && !opts.allowFail) {
      throw new GitError(`git ${args[0]} failed: ${output.trim().split("\n").slice(-5).join("\n")}`, output);
    }
    return { ok: r.exitCode === 0, stdout: r.stdout, output };
  }

  return {
    run: git,

    /** Shallow clone of one branch into `dir` (which must not exist or be empty). */
    async clone(req: { url: string; branch: string; dir: string; token?: string; depth?: number }): Promise<void> {
      await git(process.cwd(), ["clone", "--quiet", "--depth", String(req.depth ?? 50), "--branch", req.branch, "--single-branch", "--no-tags", req.url, req.dir], { token: req.token });
    },

    async headSha(dir: string): Promise<string> {
      return (await git(dir, ["rev-parse", "HEAD"])).stdout.trim();
    },

    async createBranch(dir: string, branch: string): Promise<void> {
      await git(dir, ["checkout", "--quiet", "-b", branch]);
    },

    /** Stage exactly these paths (added, modified or deleted) and commit them; other dirty files stay dirty. */
    async commit(dir: string, req: CommitRequest): Promise<CommitResult> {
      if (req.paths.length === 0) throw new GitError("nothing to commit: no paths given", "");
      await git(dir, ["add", "--all", "--", ...req.paths]);
      const message = [req.subject, req.body?.trim() ? `\n${req.body.trim()}` : "", req.trailers?.length ? `\n${req.trailers.join("\n")}` : ""].join("\n").trim() + "\n";
      const author = req.author ? ["--author", `${req.author.name} <${req.author.email}>`] : [];
      const r = await git(dir, ["commit", "--quiet", "--file", "-", ...author, "--", ...req.paths], { allowFail: true, input: message });
      if (!r.ok) {
        // Hooks are honoured (no --no-verify): a refusal is reported with the hook's output.
        throw new HookRejectedError(`git commit was refused: ${r.output.trim().split("\n").slice(-10).join("\n")}`, r.output);
      }
      const sha = (await git(dir, ["rev-parse", "HEAD"])).stdout.trim();
      return { sha, subject: req.subject, stats: await this.diffStats(dir, `${sha}^`, sha) };
    },

    /** Added/removed line counts per path between two revisions (or rev and the work tree when `to` is omitted). */
    async diffStats(dir: string, from: string, to?: string, paths: readonly string[] = []): Promise<{ path: string; added: number; removed: number }[]> {
      const r = await git(dir, ["diff", "--numstat", "-z", from, ...(to ? [to] : []), "--", ...paths], { allowFail: true });
      return parseNumstat(r.stdout);
    },

    /** `git diff HEAD` of these paths, new untracked files included as additions (for commit messages). */
    async diffText(dir: string, paths: readonly string[]): Promise<string> {
      await git(dir, ["add", "--intent-to-add", "--", ...paths], { allowFail: true });
      return (await git(dir, ["diff", "HEAD", "--", ...paths], { allowFail: true })).stdout;
    },

    /** Push HEAD to `branch` without force; if the remote moved, fetch + rebase once and push again. */
    async push(req: { dir: string; branch: string; token?: string }): Promise<void> {
      const first = await git(req.dir, ["push", "--quiet", "origin", `HEAD:refs/heads/${req.branch}`], { token: req.token, allowFail: true });
      if (first.ok) return;
      if (!/rejected|non-fast-forward|fetch first/i.test(first.output)) throw new GitError(`git push failed: ${first.output.trim()}`, first.output);
      await git(req.dir, ["fetch", "--quiet", "--depth", "50", "origin", req.branch], { token: req.token });
      const rebase = await git(req.dir, ["rebase", "--quiet", "FETCH_HEAD"], { allowFail: true });
      if (!rebase.ok) {
        await git(req.dir, ["rebase", "--abort"], { allowFail: true });
        throw new PushRejectedError(`The branch \`${req.branch}\` moved while I worked and my change conflicts with the new commits.`, rebase.output);
      }
      const second = await git(req.dir, ["push", "--quiet", "origin", `HEAD:refs/heads/${req.branch}`], { token: req.token, allowFail: true });
      if (!second.ok) throw new PushRejectedError(`The branch \`${req.branch}\` moved again while I pushed.`, second.output);
    },

    async recentCommits(dir: string, n: number): Promise<{ sha: string; message: string }[]> {
      const out = (await git(dir, ["log", `-${n}`, "--format=%H%x1f%B%x1e"])).stdout;
      return out.split("\x1e").map((s) => s.trim()).filter(Boolean).map((e) => {
        const [sha, message] = e.split("\x1f");
        return { sha: sha!, message: message ?? "" };
      });
    },

    /** `git revert` a commit as a new commit with extra trailers; returns the new sha. */
    async revert(dir: string, sha: string, trailers: readonly string[]): Promise<string> {
      const r = await git(dir, ["revert", "--no-edit", sha], { allowFail: true });
      if (!r.ok) {
        await git(dir, ["revert", "--abort"], { allowFail: true });
        throw new GitError(`Reverting ${sha.slice(0, 7)} failed: ${r.output.trim()}`, r.output);
      }
      if (trailers.length) {
        const msg = (await git(dir, ["log", "-1", "--format=%B"])).stdout.trim();
        await git(dir, ["commit", "--quiet", "--amend", "--no-verify", "-m", `${msg}\n\n${trailers.join("\n")}`]);
      }
      return (await git(dir, ["rev-parse", "HEAD"])).stdout.trim();
    },

    async formatPatch(dir: string, base: string): Promise<string> {
      return (await git(dir, ["format-patch", "--stdout", `${base}..HEAD`])).stdout;
    },
  };
}

export type Git = ReturnType<typeof createGit>;

function parseNumstat(out: string): { path: string; added: number; removed: number }[] {
  const stats: { path: string; added: number; removed: number }[] = [];
  const parts = out.split("\0");
  for (let i = 0; i < parts.length; i++) {
    const rec = parts[i]!;
    if (!rec) continue;
    const m = /^(\d+|-)\t(\d+|-)\t(.*)$/.exec(rec);
    if (!m) continue;
    let p = m[3]!;
    if (p === "") {
      // rename: the next two fields are old and new path
      p = parts[i + 2] ?? parts[i + 1] ?? "";
      i += 2;
    }
    stats.push({ path: p, added: m[1] === "-" ? 0 : Number(m[1]), removed: m[2] === "-" ? 0 : Number(m[2]) });
  }
  return stats;
}

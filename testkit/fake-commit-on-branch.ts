import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ProcessRunner } from "./run-process.js";
import type { FakeGitHubState, FakeRepo } from "./fake-github-state.js";
import { answer, failure } from "./github-shapes.js";

/** What the fake needs to write commits into its bare repositories. */
export interface FakeCommitContext {
  state: FakeGitHubState;
  exec: ProcessRunner;
  bareDir(repo: FakeRepo): string;
  webUrl: string;
}

type GraphqlAnswer = { status: number; json: unknown };

/** GitHub's user ids of the bots the fake plays (its commit emails are `<id>+<login>@users.noreply.github.com`). */
const BOT_IDS: Record<string, number> = { "github-actions[bot]": 41898282 };

/** File holding the shas of the commits GitHub "signed" (made through the API), read by the protection hook. */
export const VERIFIED_FILE = "aider-fake-verified";

/**
 * GraphQL `createCommitOnBranch` over a bare repository, validated as GitHub does: the branch must exist, the
 * `expectedHeadOid` must be its tip (a compare-and-swap; else "Expected branch to point to …"), paths must be plain
 * relative paths, deletions must exist. The commit is built with plumbing (hash-object, a temporary index,
 * write-tree, commit-tree) and the ref moved with `update-ref <new> <old>`; it is authored by the App's bot and
 * recorded as verified. A fork's branch takes it only when one of its pull requests allows maintainer edits and the
 * fork does not refuse the App (`refuseAppPushes`). With `select.signature` (the query asks for the commit's
 * `signature { isValid }`), the answer carries it as GitHub's does for a commit it signed.
 */
export async function createCommitOnBranch(
  ctx: FakeCommitContext,
  input: Record<string, unknown>,
  token: string | null,
  select: { signature?: boolean } = {},
): Promise<GraphqlAnswer> {
  if (!token || !ctx.state.issuedTokens.includes(token)) return gqlError("Bad credentials", "UNAUTHORIZED", 401);
  const commit = readCommitInput(ctx.state, input, token);
  if ("error" in commit) return commit.error;
  const { repo, branchName, fullName, expected } = commit;
  const bare = ctx.bareDir(repo);
  const git: Git = async (args, env = {}, stdin) =>
    ctx.exec.run({ command: "git", args, cwd: bare, env, ...(stdin === undefined ? {} : { input: stdin }) });
  const tip = await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branchName}^{commit}`]);
  if (tip.exitCode !== 0)
    return gqlError(`A ref named "refs/heads/${branchName}" does not exist in ${fullName}.`, "NOT_FOUND");
  const head = tip.stdout.trim();
  if (head !== expected) return staleHead(expected);

  const tmp = await mkdtemp(path.join(os.tmpdir(), "fake-commit-"));
  try {
    const env = { GIT_INDEX_FILE: path.join(tmp, "index") };
    await git(["read-tree", head], env);
    const refused =
      (await stageDeletions(git, env, head, commit.deletions, branchName)) ??
      (await stageAdditions(git, env, tmp, commit.additions));
    if (refused) return refused;
    const oid = await commitIndex(ctx.state.botLogin, git, env, tmp, head, commit.message);
    const moved = await git(["update-ref", `refs/heads/${branchName}`, oid, head]);
    if (moved.exitCode !== 0) return staleHead(expected);
    ctx.state.verifiedCommits.add(oid);
    await writeFile(path.join(bare, VERIFIED_FILE), `${oid}\n`, { flag: "a" });
    ctx.state.apiCommits.push({ repo: `${repo.owner}/${repo.name}`, branch: branchName, oid });
    const url = `${ctx.webUrl}/${repo.owner}/${repo.name}/commit/${oid}`;
    const signature = select.signature ? { signature: { isValid: true } } : {};
    return { status: 200, json: { data: { createCommitOnBranch: { commit: { oid, url, ...signature } } } } };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

type Git = (args: string[], env?: Record<string, string>, stdin?: string) => ReturnType<ProcessRunner["run"]>;
type Addition = { path?: unknown; contents?: unknown };
type Deletion = { path?: unknown };

interface CommitInput {
  repo: FakeRepo;
  fullName: string;
  branchName: string;
  expected: string;
  /** The commit message: headline, then the body after a blank line when there is one. */
  message: string;
  additions: Addition[];
  deletions: Deletion[];
}

const staleHead = (expected: string) =>
  gqlError(`Expected branch to point to "${expected}" but it did not. Pull and try again.`, "STALE_DATA");

/** The mutation's input checked as GitHub checks it before touching git: the repository, the token, the fields. */
function readCommitInput(
  state: FakeGitHubState,
  input: Record<string, unknown>,
  token: string,
): CommitInput | { error: GraphqlAnswer } {
  const branch = (input.branch ?? {}) as { repositoryNameWithOwner?: unknown; branchName?: unknown };
  const fullName = String(branch.repositoryNameWithOwner ?? "");
  const branchName = String(branch.branchName ?? "").replace(/^refs\/heads\//, "");
  const [owner, name] = fullName.split("/");
  const repo = owner && name ? state.repo(owner, name) : undefined;
  if (!repo) return { error: gqlError(`Could not resolve to a Repository with the name '${fullName}'.`, "NOT_FOUND") };
  const refusal = forkRefusal(state, repo, branchName) ?? scopeRefusal(state, repo, token);
  if (refusal) return { error: gqlError(refusal, "FORBIDDEN") };
  const expected = String(input.expectedHeadOid ?? "");
  if (!/^[0-9a-f]{40}$/.test(expected)) {
    const text =
      "Argument 'expectedHeadOid' on InputObject 'CreateCommitOnBranchInput' is required. Expected type GitObjectID!";
    return { error: gqlError(text, "INVALID_ARGUMENT") };
  }
  const message = (input.message ?? {}) as { headline?: unknown; body?: unknown };
  const headline = String(message.headline ?? "");
  if (!headline.trim() || headline.includes("\n"))
    return { error: gqlError("A commit headline is required and must be a single line.", "UNPROCESSABLE") };
  const body = typeof message.body === "string" && message.body.trim() ? `\n\n${message.body}` : "";
  const changes = (input.fileChanges ?? {}) as { additions?: Addition[]; deletions?: Deletion[] };
  const additions = changes.additions ?? [];
  const deletions = changes.deletions ?? [];
  for (const p of [...additions.map((a) => a.path), ...deletions.map((d) => d.path)]) {
    if (!validPath(p)) return { error: gqlError(`Invalid path: '${String(p)}'.`, "UNPROCESSABLE") };
  }
  return { repo, fullName, branchName, expected, message: `${headline}${body}`, additions, deletions };
}

/** Remove deleted files from the temporary index; an error answer when one is not there. */
async function stageDeletions(
  git: Git,
  env: Record<string, string>,
  head: string,
  deletions: Deletion[],
  branchName: string,
): Promise<GraphqlAnswer | null> {
  for (const d of deletions) {
    const file = String(d.path);
    const present = await git(["ls-files", "--error-unmatch", "--", file], env);
    if (present.exitCode !== 0)
      return gqlError(`The file '${file}' does not exist on '${branchName}' and cannot be deleted.`, "UNPROCESSABLE");
    // Mode 0 removes the entry (`--force-remove` wants a work tree, which a bare repository has not).
    const removed = await git(["update-index", "-z", "--index-info"], env, `0 ${"0".repeat(head.length)}\t${file}\0`);
    if (removed.exitCode !== 0)
      return gqlError(`Could not delete '${file}': ${removed.output.trim()}`, "UNPROCESSABLE");
  }
  return null;
}

/** Write added files as blobs and stage them (an existing file keeps its mode; a new one is a regular file). */
async function stageAdditions(
  git: Git,
  env: Record<string, string>,
  tmp: string,
  additions: Addition[],
): Promise<GraphqlAnswer | null> {
  for (const [i, a] of additions.entries()) {
    const file = path.join(tmp, `blob-${i}`);
    await writeFile(file, Buffer.from(String(a.contents ?? ""), "base64"));
    const oid = (await git(["hash-object", "-w", "--", file])).stdout.trim();
    const staged = (await git(["ls-files", "--stage", "--", String(a.path)], env)).stdout.trim();
    const mode = /^100755 /.test(staged) ? "100755" : "100644";
    const r = await git(["update-index", "--add", "--cacheinfo", `${mode},${oid},${String(a.path)}`], env);
    if (r.exitCode !== 0) return gqlError(`Could not add '${String(a.path)}': ${r.output.trim()}`, "UNPROCESSABLE");
  }
  return null;
}

/** The commit of the temporary index on top of `head`, authored by the App's bot and committed by GitHub. */
async function commitIndex(
  bot: string,
  git: Git,
  env: Record<string, string>,
  tmp: string,
  head: string,
  message: string,
): Promise<string> {
  const tree = (await git(["write-tree"], env)).stdout.trim();
  const who = {
    GIT_AUTHOR_NAME: bot,
    GIT_AUTHOR_EMAIL: `${BOT_IDS[bot] ?? 1}+${bot}@users.noreply.github.com`,
    GIT_COMMITTER_NAME: "GitHub",
    GIT_COMMITTER_EMAIL: "noreply@github.com",
  };
  const msgFile = path.join(tmp, "message");
  await writeFile(msgFile, `${message}\n`);
  return (await git(["commit-tree", tree, "-p", head, "-F", msgFile], who)).stdout.trim();
}

/** `POST /repos/{o}/{r}/git/refs`: a new branch at a commit the repository has (422 if the ref exists or the sha is unknown). */
export async function createGitRef(
  ctx: FakeCommitContext,
  repo: FakeRepo,
  body: Record<string, unknown>,
): Promise<{ status: number; json: unknown }> {
  const ref = String(body.ref ?? "");
  const sha = String(body.sha ?? "");
  if (!/^refs\/heads\/[\w./-]+$/.test(ref) || ref.includes("..")) return failure(422, "Reference name is not valid");
  const git = (args: string[]) => ctx.exec.run({ command: "git", args, cwd: ctx.bareDir(repo) });
  if ((await git(["cat-file", "-e", `${sha}^{commit}`])).exitCode !== 0) return failure(422, "Object does not exist");
  // The empty old value makes update-ref fail when the ref exists.
  if ((await git(["update-ref", ref, sha, ""])).exitCode !== 0) return failure(422, "Reference already exists");
  return answer("git/create-ref", 201, { ref, object: { sha, type: "commit" } });
}

/** The `verification` object GitHub puts on a commit: verified for commits made through the API. */
export function commitVerification(state: FakeGitHubState, sha: string) {
  const verified = state.verifiedCommits.has(sha);
  return { verified, reason: verified ? "valid" : "unsigned", signature: null, payload: null };
}

/**
 * A branch protection that requires signed commits: a pre-receive hook in the bare repository refuses a `git push`
 * that brings to `branch` any commit GitHub did not sign (the fake's verified list). API commits never pass through
 * receive-pack, so they are accepted.
 */
export async function requireSignedCommits(
  ctx: Pick<FakeCommitContext, "bareDir">,
  repo: FakeRepo,
  branch: string,
): Promise<void> {
  const hook = path.join(ctx.bareDir(repo), "hooks", "pre-receive");
  const script = `#!/bin/sh
verified="$GIT_DIR/${VERIFIED_FILE}"
while read old new ref; do
  [ "$ref" = "refs/heads/${branch}" ] || continue
  [ "$new" = "0000000000000000000000000000000000000000" ] && continue
  if [ "$old" = "0000000000000000000000000000000000000000" ]; then range="$new --not --all"; else range="$old..$new"; fi
  for c in $(git rev-list $range); do
    if ! grep -qx "$c" "$verified" 2>/dev/null; then
      echo "GH006: Protected branch update failed for refs/heads/${branch}."
      echo "Commits must have verified signatures."
      exit 1
    fi
  done
done
exit 0
`;
  await writeFile(hook, script);
  await chmod(hook, 0o755);
}

/**
 * Why a fork refuses the App's commit, or null when it takes it: a repository that is the head of another
 * repository's pull request is a fork; its branch is writable only when such a pull request allows maintainer edits.
 */
function forkRefusal(state: FakeGitHubState, repo: FakeRepo, branch: string): string | null {
  const fullName = `${repo.owner}/${repo.name}`.toLowerCase();
  const pulls = [...state.repos.values()]
    .flatMap((r) => [...r.issues.values()].flatMap((i) => (i.pull ? [i.pull] : [])))
    .filter((p) => p.headRepoFullName?.toLowerCase() === fullName);
  if (pulls.length === 0) return null;
  if (repo.refuseAppPushes || !pulls.some((p) => p.head === branch && p.maintainerCanModify)) {
    return `Resource not accessible by integration: ${state.botLogin} may not push to ${repo.owner}/${repo.name}.`;
  }
  return null;
}

/**
 * Why the token may not write this repository's contents, or null: a token minted with permissions needs
 * `contents: write`, and one limited to repositories must name this one (a fork's branch is governed by its pull
 * request instead, see {@link forkRefusal}).
 */
function scopeRefusal(state: FakeGitHubState, repo: FakeRepo, token: string): string | null {
  const scope = state.tokenScopes.find((s) => s.token === token);
  if (!scope) return null;
  if (scope.permissions && scope.permissions.contents !== "write")
    return "Resource not accessible by integration (the token has no contents: write).";
  const isFork = [...state.repos.values()].some((r) =>
    [...r.issues.values()].some(
      (i) => i.pull?.headRepoFullName?.toLowerCase() === `${repo.owner}/${repo.name}`.toLowerCase(),
    ),
  );
  if (!isFork && scope.repositories && !scope.repositories.includes(repo.name))
    return `Resource not accessible by integration (the token is not for ${repo.name}).`;
  return null;
}

function validPath(p: unknown): boolean {
  if (typeof p !== "string" || p === "" || p.startsWith("/") || p.endsWith("/")) return false;
  return p.split("/").every((part) => part !== "" && part !== "." && part !== ".." && part !== ".git");
}

function gqlError(message: string, type: string, status = 200): GraphqlAnswer {
  return { status, json: { data: null, errors: [{ type, message, path: ["createCommitOnBranch"] }] } };
}

import { isUtf8 } from "node:buffer";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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
 * relative paths, deletions must exist. It is authored by the App's bot and recorded as verified. A fork's branch
 * takes it only when one of its pull requests allows maintainer edits and the fork does not refuse the App
 * (`refuseAppPushes`). With `select.signature` (the query asks for the commit's `signature { isValid }`), the answer
 * carries it as GitHub's does for a commit it signed.
 *
 * Three git processes when it succeeds, whatever the number of files (GitHub's one service call starts no process
 * per step): `ls-tree` of the touched paths (modes, what a deletion removes, a file in the way of a new folder), one
 * `fast-import` writing the blobs, trees and commit on top of the expected head, and one `update-ref` moving the
 * branch from that head (the compare-and-swap). It used to be eight for one file (rev-parse, read-tree into a
 * temporary index, then per file hash-object, ls-files and update-index, then write-tree, commit-tree, update-ref),
 * one API commit of the overhead bench costing several times the floor's `git push` to the same fake. A refusal asks
 * git again for its reason, in the order GitHub gives them: a missing branch, a moved one, then a refused path.
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
  if (repo.commitApiDown) return { status: 502, json: { message: "Server Error" } };
  const bare = ctx.bareDir(repo);
  const git: Git = async (args, env = {}, stdin) =>
    ctx.exec.run({
      command: "git",
      args,
      cwd: bare,
      env: { GIT_LITERAL_PATHSPECS: "1", ...env },
      ...(stdin === undefined ? {} : { input: stdin }),
    });
  // Why the branch cannot take a commit on `expected` (missing, or moved), or null when it is still there.
  const branchRefusal = async (): Promise<GraphqlAnswer | null> => {
    const tip = await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branchName}^{commit}`]);
    if (tip.exitCode !== 0)
      return gqlError(`A ref named "refs/heads/${branchName}" does not exist in ${fullName}.`, "NOT_FOUND");
    return tip.stdout.trim() === expected ? null : staleHead(expected);
  };
  const tree = await listTouched(git, expected, commit.additions, commit.deletions);
  if (!tree) return (await branchRefusal()) ?? staleHead(expected);
  const refused = pathRefusal(tree, commit.additions, commit.deletions, branchName);
  if (refused) return (await branchRefusal()) ?? refused;

  const tmp = await mkdtemp(path.join(os.tmpdir(), "fake-commit-"));
  const scratch = `refs/fake-api-commits/${path.basename(tmp)}`;
  let moved = false;
  try {
    const blobs = await binaryBlobs(git, tmp, commit.additions);
    if ("error" in blobs) return blobs.error;
    const marks = path.join(tmp, "marks");
    // unpackLimit 1: the import stays one pack, not loose objects written by one more process (unpack-objects).
    const imported = await git(
      [
        "-c",
        "fastimport.unpackLimit=1",
        "fast-import",
        "--quiet",
        "--done",
        "--date-format=now",
        `--export-marks=${marks}`,
      ],
      {},
      importStream(ctx.state.botLogin, scratch, expected, commit, tree, blobs.ids),
    );
    const oid = /^:1 ([0-9a-f]{40}(?:[0-9a-f]{24})?)$/m.exec(await readFile(marks, "utf8").catch(() => ""))?.[1];
    if (imported.exitCode !== 0 || !oid)
      return gqlError(`Could not make the commit: ${imported.output.trim()}`, "UNPROCESSABLE");
    // One transaction: the branch moves only from the expected head, and the scratch ref goes with it.
    const swapped = await git(
      ["update-ref", "--stdin"],
      {},
      `update refs/heads/${branchName} ${oid} ${expected}\ndelete ${scratch}\n`,
    );
    if (swapped.exitCode !== 0) return (await branchRefusal()) ?? staleHead(expected);
    moved = true;
    ctx.state.verifiedCommits.add(oid);
    await writeFile(path.join(bare, VERIFIED_FILE), `${oid}\n`, { flag: "a" });
    ctx.state.apiCommits.push({ repo: `${repo.owner}/${repo.name}`, branch: branchName, oid });
    const url = `${ctx.webUrl}/${repo.owner}/${repo.name}/commit/${oid}`;
    const signature = select.signature ? { signature: { isValid: true } } : {};
    return { status: 200, json: { data: { createCommitOnBranch: { commit: { oid, url, ...signature } } } } };
  } finally {
    // A refused or failed commit leaves no scratch ref behind (a made one deleted it as the branch moved).
    if (!moved) await git(["update-ref", "-d", scratch]);
    await rm(tmp, { recursive: true, force: true });
  }
}

type Git = (args: string[], env?: Record<string, string>, stdin?: string) => ReturnType<ProcessRunner["run"]>;
type Addition = { path?: unknown; contents?: unknown };
type Deletion = { path?: unknown };
/** The expected head's entries at the touched paths and their folders: mode and type by path. */
type Touched = Map<string, { mode: string; type: string }>;

/** Every folder above a path (`a/b/c` → `a`, `a/b`). */
function foldersOf(file: string): string[] {
  const parts = file.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** One `ls-tree` of `head` at the touched paths and their folders; null when git cannot read `head`. */
async function listTouched(
  git: Git,
  head: string,
  additions: Addition[],
  deletions: Deletion[],
): Promise<Touched | null> {
  const files = [...additions.map((a) => String(a.path)), ...deletions.map((d) => String(d.path))];
  const paths = [...new Set(files.flatMap((f) => [...foldersOf(f), f]))];
  const listed = await git(["ls-tree", "-z", "--full-tree", `${head}^{commit}`, "--", ...paths]);
  if (listed.exitCode !== 0) return null;
  const touched: Touched = new Map();
  for (const entry of listed.stdout.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab < 0) continue;
    const [mode = "", type = ""] = entry.slice(0, tab).split(" ");
    touched.set(entry.slice(tab + 1), { mode, type });
  }
  return touched;
}

/**
 * What GitHub refuses of the file changes against the expected head (an error answer), or null: a deletion of a path
 * that is no file there, an addition where a file stands in the way of its folder or a folder has its name.
 */
function pathRefusal(
  tree: Touched,
  additions: Addition[],
  deletions: Deletion[],
  branchName: string,
): GraphqlAnswer | null {
  const deleted = new Set<string>();
  for (const d of deletions) {
    const file = String(d.path);
    const entry = tree.get(file);
    if (!entry || entry.type === "tree")
      return gqlError(`The file '${file}' does not exist on '${branchName}' and cannot be deleted.`, "UNPROCESSABLE");
    deleted.add(file);
  }
  for (const a of additions) {
    const file = String(a.path);
    const inTheWay =
      foldersOf(file).find((dir) => !deleted.has(dir) && tree.has(dir) && tree.get(dir)!.type !== "tree") ??
      (tree.get(file)?.type === "tree" ? file : undefined);
    if (inTheWay !== undefined)
      return gqlError(`Could not add '${file}': '${inTheWay}' is in the way.`, "UNPROCESSABLE");
  }
  return null;
}

/**
 * Added contents that are not UTF-8 text, written as blobs one by one (the stream to fast-import is text), their
 * ids by the addition's index. Text, the usual case, goes inline in the stream.
 */
async function binaryBlobs(
  git: Git,
  tmp: string,
  additions: Addition[],
): Promise<{ ids: Map<number, string> } | { error: GraphqlAnswer }> {
  const ids = new Map<number, string>();
  for (const [i, a] of additions.entries()) {
    const bytes = Buffer.from(String(a.contents ?? ""), "base64");
    if (isUtf8(bytes)) continue;
    const file = path.join(tmp, `blob-${i}`);
    await writeFile(file, bytes);
    const written = await git(["hash-object", "-w", "--", file]);
    if (written.exitCode !== 0)
      return { error: gqlError(`Could not add '${String(a.path)}': ${written.output.trim()}`, "UNPROCESSABLE") };
    ids.set(i, written.stdout.trim());
  }
  return { ids };
}

/**
 * The fast-import stream of the commit (mark :1) on `scratch`, on top of `head`: deletions, then additions (an
 * existing executable file stays one; anything else becomes a regular file), authored by the App's bot and committed
 * by GitHub.
 */
function importStream(
  bot: string,
  scratch: string,
  head: string,
  commit: CommitInput,
  tree: Touched,
  blobIds: Map<number, string>,
): string {
  const data = (text: string) => `data ${Buffer.byteLength(text, "utf8")}\n${text}\n`;
  const out = [
    `commit ${scratch}\n`,
    "mark :1\n",
    `author ${bot} <${BOT_IDS[bot] ?? 1}+${bot}@users.noreply.github.com> now\n`,
    "committer GitHub <noreply@github.com> now\n",
    data(`${commit.message}\n`),
    `from ${head}\n`,
  ];
  for (const d of commit.deletions) out.push(`D ${quotePath(String(d.path))}\n`);
  for (const [i, a] of commit.additions.entries()) {
    const file = String(a.path);
    const mode = tree.get(file)?.mode === "100755" ? "100755" : "100644";
    const blob = blobIds.get(i);
    if (blob) out.push(`M ${mode} ${blob} ${quotePath(file)}\n`);
    else
      out.push(
        `M ${mode} inline ${quotePath(file)}\n`,
        data(Buffer.from(String(a.contents ?? ""), "base64").toString("utf8")),
      );
  }
  out.push("done\n");
  return out.join("");
}

/** A path as fast-import reads it: always C-quoted, so spaces, quotes and newlines in names stay exact. */
function quotePath(file: string): string {
  const escaped = [...Buffer.from(file, "utf8")]
    .map((b) => {
      if (b === 0x22) return '\\"';
      if (b === 0x5c) return "\\\\";
      if (b === 0x0a) return "\\n";
      if (b < 0x20 || b >= 0x7f) return `\\${b.toString(8).padStart(3, "0")}`;
      return String.fromCharCode(b);
    })
    .join("");
  return `"${escaped}"`;
}

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

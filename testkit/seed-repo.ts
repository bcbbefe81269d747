import path from "node:path";
import { appendFile, mkdir } from "node:fs/promises";
import type { FakeGitHub } from "./start-fake-github.js";
import type { FakeIssue, FakeRepo } from "./fake-github-state.js";

const AUTHOR = "Demo Maintainer <maintainer@example.com>";

/** Run git as the fake GitHub does (its exec: its environment, and its spawn helper when it was given one). */
async function git(fake: FakeGitHub, cwd: string, args: string[], input?: string): Promise<string> {
  const r = await fake.exec.run({ command: "git", args, cwd, ...(input === undefined ? {} : { input }) });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.output}`);
  return r.stdout.trim();
}

/** A path as fast-import reads it: C-style quoted, so any name (quotes, newlines, a leading quote) is taken literally. */
const quotePath = (p: string) => `"${p.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, "\\n")}"`;
const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;

/**
 * One commit of `files` on `branch` of a bare repository, on top of `parent` (a ref) or as a root commit, in one
 * git process: `git fast-import` writes the objects and moves the ref without a work tree. Seeding through a clone,
 * `add`, `commit` and `push` took six git processes per commit, each forked from the test runner's large process.
 */
async function commitFiles(
  fake: FakeGitHub,
  bare: string,
  spec: { branch: string; parent?: string; files: Record<string, string>; message: string },
): Promise<void> {
  const who = `${AUTHOR} ${Math.floor(Date.now() / 1000)} +0000`;
  const stream = [
    `commit refs/heads/${spec.branch}\n`,
    `author ${who}\ncommitter ${who}\n`,
    data(`${spec.message}\n`),
    spec.parent ? `from ${spec.parent}^0\n` : "",
    ...Object.entries(spec.files).map(([file, content]) => `M 100644 inline ${quotePath(file)}\n${data(content)}`),
    "\ndone\n",
  ].join("");
  await git(fake, bare, ["fast-import", "--quiet", "--done"], stream);
}

/** Create a repository on the fake GitHub: a bare repo with one commit of `files` on the default branch. */
export async function seedRepo(
  fake: FakeGitHub,
  spec: {
    owner: string;
    name: string;
    defaultBranch?: string;
    files: Record<string, string>;
    permissions: Record<string, string>;
  },
): Promise<FakeRepo> {
  const repo = fake.state.addRepo(spec.owner, spec.name, spec.defaultBranch ?? "main", spec.permissions);
  const bare = fake.bareDir(repo);
  await mkdir(bare, { recursive: true });
  await git(fake, bare, ["init", "--bare", "-q", "-b", repo.defaultBranch]);
  // Pushes over HTTP (git http-backend refuses receive-pack unless this is set).
  await appendFile(path.join(bare, "config"), "[http]\n\treceivepack = true\n");
  await commitFiles(fake, bare, { branch: repo.defaultBranch, files: spec.files, message: "Initial commit" });
  return repo;
}

/** Open a pull request on the fake: a branch with one extra commit of `files` on top of the default branch. */
export async function seedPullRequest(
  fake: FakeGitHub,
  repo: FakeRepo,
  spec: { title: string; body?: string; head: string; user: string; files: Record<string, string> },
): Promise<FakeIssue> {
  await commitFiles(fake, fake.bareDir(repo), {
    branch: spec.head,
    parent: `refs/heads/${repo.defaultBranch}`,
    files: spec.files,
    message: spec.title,
  });
  const issue: FakeIssue = {
    number: fake.state.nextIssueNumber(repo),
    title: spec.title,
    body: spec.body ?? "",
    user: spec.user,
    labels: [],
    pull: { head: spec.head, base: repo.defaultBranch, draft: false, requestedReviewers: [] },
  };
  repo.issues.set(issue.number, issue);
  return issue;
}

/** Open an issue on the fake. */
export function seedIssue(
  fake: FakeGitHub,
  repo: FakeRepo,
  spec: { title: string; body: string; user: string; labels?: string[] },
): FakeIssue {
  const issue: FakeIssue = {
    number: fake.state.nextIssueNumber(repo),
    title: spec.title,
    body: spec.body,
    user: spec.user,
    labels: spec.labels ?? [],
  };
  repo.issues.set(issue.number, issue);
  return issue;
}

/** The commits on a branch of a fake repo, newest first: sha, subject, body, author. */
export async function branchLog(fake: FakeGitHub, repo: FakeRepo, branch: string, n = 5) {
  const out = await git(fake, fake.bareDir(repo), [
    "log",
    `-${n}`,
    "--format=%H%x1f%s%x1f%an <%ae>%x1f%B%x1e",
    `refs/heads/${branch}`,
  ]);
  return out
    .split("\x1e")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [sha, subject, author, body] = entry.split("\x1f"); // the format above writes all four fields
      return { sha: sha!, subject: subject!, author: author!, body: body ?? "" };
    });
}

/** A file's content on a branch of a fake repo, or null. */
export async function fileOnBranch(
  fake: FakeGitHub,
  repo: FakeRepo,
  branch: string,
  file: string,
): Promise<string | null> {
  const r = await fake.exec.run({
    command: "git",
    args: ["show", `refs/heads/${branch}:${file}`],
    cwd: fake.bareDir(repo),
  });
  return r.exitCode === 0 ? r.stdout : null;
}

/** Commit `files` on top of a branch of a fake repo, as a human pushing directly would. */
export async function pushCommit(
  fake: FakeGitHub,
  repo: FakeRepo,
  branch: string,
  files: Record<string, string>,
  subject = "human commit",
): Promise<void> {
  await commitFiles(fake, fake.bareDir(repo), { branch, parent: `refs/heads/${branch}`, files, message: subject });
}

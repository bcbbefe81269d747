import path from "node:path";
import os from "node:os";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { createExec } from "../exec/create-exec.js";
import type { FakeGitHub } from "./start-fake-github.js";
import type { FakeIssue, FakeRepo } from "./fake-github-state.js";

type SourceEnv = Readonly<Record<string, string | undefined>>;
const AUTHOR = ["-c", "user.name=Demo Maintainer", "-c", "user.email=maintainer@example.com"];

async function git(sourceEnv: SourceEnv, cwd: string, ...args: string[]): Promise<string> {
  const r = await createExec({ sourceEnv }).run({ command: "git", args: [...AUTHOR, ...args], cwd });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.output}`);
  return r.stdout.trim();
}

async function writeTree(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(dir, rel);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

/** Create a repository on the fake GitHub: a bare repo with one commit of `files` on the default branch. */
export async function seedRepo(
  fake: FakeGitHub,
  sourceEnv: SourceEnv,
  spec: { owner: string; name: string; defaultBranch?: string; files: Record<string, string>; permissions: Record<string, string> },
): Promise<FakeRepo> {
  const repo = fake.state.addRepo(spec.owner, spec.name, spec.defaultBranch ?? "main", spec.permissions);
  const bare = fake.bareDir(repo);
  await mkdir(bare, { recursive: true });
  await git(sourceEnv, bare, "init", "--bare", "-q", "-b", repo.defaultBranch);
  await git(sourceEnv, bare, "config", "http.receivepack", "true");
  const work = await mkdtemp(path.join(os.tmpdir(), "seed-"));
  try {
    await git(sourceEnv, work, "init", "-q", "-b", repo.defaultBranch);
    await writeTree(work, spec.files);
    await git(sourceEnv, work, "add", "-A");
    await git(sourceEnv, work, "commit", "-q", "-m", "Initial commit");
    await git(sourceEnv, work, "push", "-q", bare, `HEAD:refs/heads/${repo.defaultBranch}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return repo;
}

/** Open a pull request on the fake: a branch with one extra commit of `files` on top of the default branch. */
export async function seedPullRequest(
  fake: FakeGitHub,
  sourceEnv: SourceEnv,
  repo: FakeRepo,
  spec: { title: string; body?: string; head: string; user: string; files: Record<string, string> },
): Promise<FakeIssue> {
  const bare = fake.bareDir(repo);
  const work = await mkdtemp(path.join(os.tmpdir(), "seed-pr-"));
  try {
    await git(sourceEnv, work, "clone", "-q", "-b", repo.defaultBranch, bare, ".");
    await git(sourceEnv, work, "checkout", "-q", "-b", spec.head);
    await writeTree(work, spec.files);
    await git(sourceEnv, work, "add", "-A");
    await git(sourceEnv, work, "commit", "-q", "-m", spec.title);
    await git(sourceEnv, work, "push", "-q", "origin", `HEAD:refs/heads/${spec.head}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
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
export function seedIssue(fake: FakeGitHub, repo: FakeRepo, spec: { title: string; body: string; user: string; labels?: string[] }): FakeIssue {
  const issue: FakeIssue = { number: fake.state.nextIssueNumber(repo), title: spec.title, body: spec.body, user: spec.user, labels: spec.labels ?? [] };
  repo.issues.set(issue.number, issue);
  return issue;
}

/** The commits on a branch of a fake repo, newest first: sha, subject, body, author. */
export async function branchLog(fake: FakeGitHub, sourceEnv: SourceEnv, repo: FakeRepo, branch: string, n = 5) {
  const out = await git(sourceEnv, fake.bareDir(repo), "log", `-${n}`, "--format=%H%x1f%s%x1f%an <%ae>%x1f%B%x1e", `refs/heads/${branch}`);
  return out
    .split("\x1e")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [sha, subject, author, body] = entry.split("\x1f");
      return { sha: sha!, subject: subject!, author: author!, body: body ?? "" };
    });
}

/** A file's content on a branch of a fake repo, or null. */
export async function fileOnBranch(fake: FakeGitHub, sourceEnv: SourceEnv, repo: FakeRepo, branch: string, file: string): Promise<string | null> {
  const r = await createExec({ sourceEnv }).run({ command: "git", args: ["show", `refs/heads/${branch}:${file}`], cwd: fake.bareDir(repo) });
  return r.exitCode === 0 ? r.stdout : null;
}

/** Commit `files` on top of a branch of a fake repo, as a human pushing directly would. */
export async function pushCommit(fake: FakeGitHub, sourceEnv: SourceEnv, repo: FakeRepo, branch: string, files: Record<string, string>, subject = "human commit"): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), "seed-push-"));
  try {
    await git(sourceEnv, work, "clone", "-q", "-b", branch, fake.bareDir(repo), ".");
    await writeTree(work, files);
    await git(sourceEnv, work, "add", "-A");
    await git(sourceEnv, work, "commit", "-q", "-m", subject);
    await git(sourceEnv, work, "push", "-q", "origin", `HEAD:refs/heads/${branch}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

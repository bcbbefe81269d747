/**
 * A replay case: one real commit of a public repository, vendored as a git bundle (bench/replay/bundles/, built by
 * scripts/rebuild-replay-bundles.mjs) of two commits — the commit's parent tree as a root commit, and the commit.
 * This module reads the manifest, and seeds a case on the fake GitHub: the default branch is the parent, and a pull
 * request adds the commit's test changes.
 */
import { appendFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FakeGitHub } from "../../testkit/start-fake-github.js";
import type { FakeIssue, FakeRepo } from "../../testkit/fake-github-state.js";

export const REPLAY_DIR = path.dirname(fileURLToPath(import.meta.url));

export interface ReplayCase {
  /** Short name used by `--cases` and the bundle's file name. */
  id: string;
  /** owner/name on GitHub. */
  repo: string;
  commit: string;
  ecosystem: "node" | "python" | "go" | "rust" | "c" | "perl";
  /** The path of the repository's licence in the commit (kept in bench/replay/licences/). */
  licence: string;
  /** Files the commit changes that are its tests (they go on the pull request). */
  tests: string[];
  /** Every other file the commit changes: what the oracle answers with, and what the pushed tree is judged on. */
  source: string[];
  /** How the judge sets the checkout up and runs the repository's tests (from its CI), on this machine's tools. */
  judge: { setup: string[]; test: string[] };
  /** Why a case is expected to be unsolved, when it is (a documented limit of this machine or of the bot). */
  note?: string;
}

export interface ReplayManifest {
  cases: ReplayCase[];
}

export async function readManifest(): Promise<ReplayManifest> {
  return JSON.parse(await readFile(path.join(REPLAY_DIR, "manifest.json"), "utf8")) as ReplayManifest;
}

export const bundlePath = (c: ReplayCase) => path.join(REPLAY_DIR, "bundles", `${c.id}.bundle`);

/** Run git as the fake GitHub does; throws with git's output when it fails. */
async function git(fake: FakeGitHub, cwd: string, args: string[], input?: string, env?: Record<string, string>) {
  const r = await fake.exec.run({
    command: "git",
    args,
    cwd,
    ...(input === undefined ? {} : { input }),
    ...(env ? { env } : {}),
  });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.output}`);
  return r.stdout.trim();
}

export interface SeededCase {
  repo: FakeRepo;
  pr: FakeIssue;
  /** The commit's subject: the request. */
  subject: string;
  /** Each source path's text after the commit (null: the commit deletes it). */
  wanted: Map<string, string | null>;
  /** Source paths that exist before the commit (the request names them with --file). */
  existing: string[];
  /** Each source path's text before the commit (null: the commit creates it). */
  before: Map<string, string | null>;
}

const PR_AUTHOR = {
  GIT_AUTHOR_NAME: "Replay Bench",
  GIT_AUTHOR_EMAIL: "replay@example.com",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
  GIT_COMMITTER_NAME: "Replay Bench",
  GIT_COMMITTER_EMAIL: "replay@example.com",
  GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
};

/**
 * A repository `owner/name` on the fake whose default branch is the case's parent commit (its real tree, modes
 * included), and an open pull request from `user` whose one commit adds the case's test changes.
 */
export async function seedCase(
  fake: FakeGitHub,
  c: ReplayCase,
  spec: { owner: string; name: string; user: string },
): Promise<SeededCase> {
  // A name seeded before (the bench's runs of one repository share it) keeps its repository: a new pull request on
  // it, its default branch moved to this case's parent, as a real repository's next PR is.
  const known = fake.state.repos.get(`${spec.owner}/${spec.name}`.toLowerCase());
  const repo = known ?? fake.state.addRepo(spec.owner, spec.name, "main", { [spec.user]: "write" });
  const bare = fake.bareDir(repo);
  if (!known) {
    await mkdir(bare, { recursive: true });
    await git(fake, bare, ["init", "--bare", "-q", "-b", "main"]);
    await appendFile(path.join(bare, "config"), "[http]\n\treceivepack = true\n");
  }
  await git(fake, bare, ["fetch", "-q", bundlePath(c), "refs/heads/replay:refs/replay/commit"]);
  const commit = await git(fake, bare, ["rev-parse", "refs/replay/commit"]);
  const parent = await git(fake, bare, ["rev-parse", `${commit}^`]);
  await git(fake, bare, ["update-ref", "refs/heads/main", parent]);
  // The pull request's tree: the parent's with the commit's version of each test file (or without it, if deleted).
  const index = path.join(bare, "replay-index");
  const env = { GIT_INDEX_FILE: index };
  await git(fake, bare, ["read-tree", parent], undefined, env);
  const entries: string[] = [];
  for (const file of c.tests) {
    const entry = await git(fake, bare, ["ls-tree", commit, "--", file]);
    entries.push(entry ? entry.replace(/^(\d+) blob ([0-9a-f]+)\t/, "$1 $2\t") : `0 ${"0".repeat(40)}\t${file}`);
  }
  await git(fake, bare, ["update-index", "--index-info"], `${entries.join("\n")}\n`, env);
  const tree = await git(fake, bare, ["write-tree"], undefined, env);
  const subject = await git(fake, bare, ["show", "-s", "--format=%s", commit]);
  const head = await git(fake, bare, ["commit-tree", tree, "-p", parent, "-m", `Tests for: ${subject}`], undefined, {
    ...env,
    ...PR_AUTHOR,
  });
  await git(fake, bare, ["update-ref", "refs/heads/pr", head]);
  const wanted = new Map<string, string | null>();
  const existing: string[] = [];
  const before = new Map<string, string | null>();
  for (const file of c.source) {
    const after = await fake.exec.run({ command: "git", args: ["show", `${commit}:${file}`], cwd: bare });
    wanted.set(file, after.exitCode === 0 ? after.stdout : null);
    const old = await fake.exec.run({ command: "git", args: ["show", `${parent}:${file}`], cwd: bare });
    before.set(file, old.exitCode === 0 ? old.stdout : null);
    if (old.exitCode === 0) existing.push(file);
  }
  // The bot must not see the answer: the commit's ref goes (its objects stay, unreachable and never advertised).
  await git(fake, bare, ["update-ref", "-d", "refs/replay/commit"]);
  const pr: FakeIssue = {
    number: fake.state.nextIssueNumber(repo),
    title: `Tests for: ${subject}`,
    body: "",
    user: spec.user,
    labels: [],
    pull: { head: "pr", base: "main", draft: false, requestedReviewers: [] },
  };
  repo.issues.set(pr.number, pr);
  return { repo, pr, subject, wanted, existing, before };
}

import { publishCommit, signingNote } from "../../../src/run/publish/publish-commit.js";
import type { ApiCommitRequest, ApiCommitResult } from "../../../src/github/commit-on-branch.js";
import type { RunGit, RunGitHub } from "../../../src/run/run-ports.js";
import type { CommitChanges } from "../../../src/workspace/read-commit-changes.js";
import { commitChanges } from "../../../testkit/builders/run-fixtures.js";
import { PushRejectedError } from "../../../src/workspace/git-errors.js";

const parent = "a".repeat(40);
const plain = commitChanges();

/** A run's git and GitHub sides that record what publishing did. */
function sides(changes: CommitChanges, answer: ApiCommitResult) {
  const calls: string[] = [];
  const sent: ApiCommitRequest[] = [];
  const git = {
    push: async (r: { branch: string }) => void calls.push(`push ${r.branch}`),
    readCommit: async () => changes,
  } as unknown as RunGit;
  const github = {
    apiCommits: {
      create: async (req: ApiCommitRequest) => (calls.push(`create ${req.branch}`), sent.push(req), answer),
      createBranch: async (branch: string, sha: string) => void calls.push(`branch ${branch}@${sha.slice(0, 1)}`),
    },
  } as unknown as RunGitHub;
  return { calls, sent, deps: { git, github } };
}

const args = (deps: { git: RunGit; github: RunGitHub }, signing?: "api" | "git") => ({
  req: { settings: { commitSigning: signing } as never },
  deps,
  dir: "/tmp/x",
  sha: "c".repeat(40),
  branch: "feature",
  token: "t",
});

describe("publishCommit: API or git push", () => {
  it("makes the commit through the API with the parent as the compare-and-swap, and never pushes", async () => {
    const s = sides(plain, { kind: "made", oid: "d".repeat(40), verified: true });
    await expect(publishCommit(args(s.deps))).resolves.toEqual({ via: "api", oid: "d".repeat(40), verified: true });
    expect(s.calls).toEqual(["create feature"]);
    expect(s.sent[0]).toMatchObject({
      expectedHeadOid: parent,
      message: { headline: "fix: add", body: "Co-authored-by: ann <ann@example.com>" },
    });
  });

  it("creates an issue run's branch at the parent first", async () => {
    const s = sides(plain, { kind: "made", oid: "d".repeat(40), verified: true });
    await publishCommit({ ...args(s.deps), newBranch: true });
    expect(s.calls).toEqual(["branch feature@a", "create feature"]);
  });

  it("a commit GitHub's API cannot make (GraphQL answering 404) is pushed with git, and the note says why", async () => {
    const s = sides(plain, { kind: "made", oid: "d".repeat(40), verified: true });
    const failing = s.deps.github.apiCommits as unknown as { create: () => Promise<never> };
    failing.create = async () => {
      s.calls.push("create feature");
      throw Object.assign(new Error("Creating the commit on acme/web:feature failed: GitHub answered 404"), {
        status: 404,
      });
    };
    const published = await publishCommit(args(s.deps));
    expect(s.calls).toEqual(["create feature", "push feature"]);
    expect(published).toMatchObject({ via: "git" });
    expect(signingNote(published)).toMatch(/GitHub's API could not make the commit \(.*404.*\)/);
  });

  it("removes the checkout's files while GitHub makes the commit, and hands that work to the run to await", async () => {
    const s = sides(plain, { kind: "made", oid: "d".repeat(40), verified: true });
    const api = s.deps.github.apiCommits as unknown as { create: () => Promise<ApiCommitResult> };
    api.create = async () => {
      s.calls.push("create feature");
      // GitHub's round trip: a few turns of the event loop.
      for (let turn = 0; turn < 3; turn++) await new Promise((done) => setImmediate(done));
      s.calls.push("made");
      return { kind: "made", oid: "d".repeat(40), verified: true };
    };
    s.deps.git.clearWorkTree = async (dir) => void s.calls.push(`clear ${dir}`);
    s.deps.git.restoreWorkTree = async () => void s.calls.push("restore");
    const kept: Promise<unknown>[] = [];
    await publishCommit({ ...args(s.deps), keep: (work) => void kept.push(work.done) });
    expect(s.calls).toEqual(["create feature", "clear /tmp/x", "made"]);
    expect(kept).toHaveLength(1);
  });

  it("when the API fails after the files were removed, they are written again before git pushes", async () => {
    const s = sides(plain, { kind: "made", oid: "d".repeat(40), verified: true });
    const api = s.deps.github.apiCommits as unknown as { create: () => Promise<never> };
    api.create = async () => {
      s.calls.push("create feature");
      throw Object.assign(new Error("GitHub answered 502"), { status: 502 });
    };
    s.deps.git.clearWorkTree = async () => {
      await new Promise((done) => setImmediate(done));
      s.calls.push("cleared");
    };
    s.deps.git.restoreWorkTree = async () => void s.calls.push("restore");
    const published = await publishCommit({ ...args(s.deps), keep: () => undefined });
    expect(s.calls).toEqual(["create feature", "cleared", "restore", "push feature"]);
    expect(published).toMatchObject({ via: "git" });
  });

  it("keeps the files where the checkout outlives the run (no way to restore them, or no run to await the removal)", async () => {
    const s = sides(plain, { kind: "made", oid: "d".repeat(40), verified: true });
    s.deps.git.clearWorkTree = async () => void s.calls.push("clear");
    await publishCommit({ ...args(s.deps), keep: () => undefined });
    await publishCommit(args(s.deps));
    expect(s.calls).toEqual(["create feature", "create feature"]);
  });

  it("a moved branch is today's refused push, and nothing is pushed with git", async () => {
    const s = sides(plain, { kind: "moved", reason: 'Expected branch to point to "aaa" but it did not.' });
    const error = await publishCommit(args(s.deps)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PushRejectedError);
    expect((error as Error).message).toMatch(/Someone pushed to `feature` while I was working, so nothing was pushed/);
    expect(s.calls).toEqual(["create feature"]);
  });

  it("commit.signing: git pushes, and says nothing", async () => {
    const s = sides(plain, { kind: "made", oid: "d", verified: true });
    const published = await publishCommit(args(s.deps, "git"));
    expect(published).toEqual({ via: "git" });
    expect(s.calls).toEqual(["push feature"]);
    expect(signingNote(published)).toBeNull();
  });

  it("what the API cannot express is pushed with git, and the note says why", async () => {
    const link = {
      ...plain,
      entries: [{ status: "A", srcMode: "000000", dstMode: "120000", dstOid: "e".repeat(40), path: "link" }],
      contents: new Map(),
    };
    const s = sides(link, { kind: "made", oid: "d", verified: true });
    const published = await publishCommit(args(s.deps));
    expect(s.calls).toEqual(["push feature"]);
    expect(signingNote(published)).toBe(
      "ℹ️ Pushed with `git push` instead of GitHub's API because `link` is a symbolic link, so this commit is not signed by GitHub (not Verified).",
    );
  });

  it("a refusal on the run's own repository fails the run with GitHub's reason", async () => {
    const s = sides(plain, { kind: "refused", reason: "Resource not accessible by integration" });
    await expect(publishCommit(args(s.deps))).rejects.toThrow(
      /GitHub refused my commit to `feature`: Resource not accessible by integration/,
    );
  });

  describe("a commit sent before any local commit (ahead)", () => {
    it("takes GitHub's answer without reading the commit back or asking again", async () => {
      const s = sides(plain, { kind: "made", oid: "d".repeat(40), verified: true });
      s.deps.git.readCommit = async () => {
        throw new Error("read back");
      };
      const ahead = {
        made: Promise.resolve<ApiCommitResult>({ kind: "made", oid: "e".repeat(40), verified: true }),
        commitLocally: async () => "c".repeat(40),
      };
      const waited: string[] = [];
      const published = await publishCommit({ ...args(s.deps), ahead, whileWaiting: () => waited.push("wait") });
      expect(published).toEqual({ via: "api", oid: "e".repeat(40), verified: true });
      expect(s.calls).toEqual([]);
      expect(waited).toEqual(["wait"]);
    });

    it("a moved branch ends the run as before", async () => {
      const s = sides(plain, { kind: "made", oid: "d", verified: true });
      const ahead = {
        made: Promise.resolve<ApiCommitResult>({ kind: "moved", reason: "Expected branch to point to x" }),
        commitLocally: async () => "c".repeat(40),
      };
      await expect(publishCommit({ ...args(s.deps), ahead })).rejects.toBeInstanceOf(PushRejectedError);
      expect(s.calls).toEqual([]);
    });

    it("when the API fails, the local commit is pushed with git (its files written again first)", async () => {
      const s = sides(plain, { kind: "made", oid: "d", verified: true });
      s.deps.git.clearWorkTree = async () => void s.calls.push("cleared");
      s.deps.git.restoreWorkTree = async () => void s.calls.push("restore");
      const ahead = {
        made: Promise.reject<ApiCommitResult>(Object.assign(new Error("GitHub answered 502"), { status: 502 })),
        commitLocally: async () => (s.calls.push("local commit"), "c".repeat(40)),
      };
      const published = await publishCommit({ ...args(s.deps), ahead, keep: () => undefined });
      expect(s.calls).toEqual(["cleared", "restore", "local commit", "push feature"]);
      expect(signingNote(published)).toMatch(/GitHub's API could not make the commit \(GitHub answered 502\)/);
    });

    it("when the API fails and git could not make the commit either, nothing is pushed and the error says so", async () => {
      const s = sides(plain, { kind: "made", oid: "d", verified: true });
      s.deps.git.clearWorkTree = async () => void s.calls.push("cleared");
      s.deps.git.restoreWorkTree = async () => void s.calls.push("restore");
      const ahead = {
        made: Promise.reject<ApiCommitResult>(new Error("GitHub answered 502")),
        commitLocally: async () => null,
      };
      const error = await publishCommit({ ...args(s.deps), sha: "", ahead, keep: () => undefined }).catch(
        (e: unknown) => e,
      );
      expect((error as Error).message).toBe(
        "GitHub's API could not make the commit (GitHub answered 502), and git could not make it here either, so nothing was pushed. Ask again to retry.",
      );
      expect(s.calls).toEqual(["cleared", "restore"]);
    });

    it("removes the files while GitHub makes the commit, as without it (no git commit is under way)", async () => {
      const s = sides(plain, { kind: "made", oid: "d", verified: true });
      s.deps.git.clearWorkTree = async () => void s.calls.push("cleared");
      s.deps.git.restoreWorkTree = async () => undefined;
      let answer: (r: ApiCommitResult) => void = () => undefined;
      const made = new Promise<ApiCommitResult>((resolve) => (answer = resolve));
      const kept: Promise<unknown>[] = [];
      const publishing = publishCommit({
        ...args(s.deps),
        sha: "",
        ahead: { made, commitLocally: async () => null },
        keep: (w) => void kept.push(w.done),
      });
      await kept[0];
      expect(s.calls).toEqual(["cleared"]);
      answer({ kind: "made", oid: "d".repeat(40), verified: true });
      await expect(publishing).resolves.toMatchObject({ via: "api", oid: "d".repeat(40) });
    });
  });
});

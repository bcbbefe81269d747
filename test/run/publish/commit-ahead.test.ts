import pino from "pino";
import type { CoderResult } from "../../../src/coder/types.js";
import type { ApiCommitRequest, ApiCommitResult } from "../../../src/github/commit-on-branch.js";
import { createCommitAhead } from "../../../src/run/publish/commit-ahead.js";
import type { RunGitHub } from "../../../src/run/run-ports.js";
import type { RunRequest } from "../../../src/run/run-request.js";
import type { CommitChanges } from "../../../src/workspace/read-commit-changes.js";
import {
  changedResult,
  commitChanges,
  issueTarget,
  prTarget,
  runRequest,
  runSettings,
} from "../../../testkit/builders/run-fixtures.js";

const parent = "a".repeat(40);
/** The local commit, made only if git must push after all. */
const local = async () => "c".repeat(40);
const changes = commitChanges();

function github(answer: ApiCommitResult = { kind: "made", oid: "d".repeat(40), verified: true }) {
  const calls: string[] = [];
  const sent: ApiCommitRequest[] = [];
  const gh = {
    apiCommits: {
      create: async (req: ApiCommitRequest) => (calls.push(`create ${req.branch}`), sent.push(req), answer),
      createBranch: async (branch: string, sha: string) => void calls.push(`branch ${branch}@${sha.slice(0, 1)}`),
    },
  } as unknown as RunGitHub;
  return { gh, calls, sent };
}

const setup = (req: RunRequest, gh: RunGitHub, controller = new AbortController()) =>
  createCommitAhead(
    req,
    { github: gh, signal: controller.signal, logger: pino({ level: "silent" }) },
    {
      workBranch: "feature",
    },
  );

/** A changed result whose only check could not judge the change (it fails on the base too). */
const unchecked: CoderResult = changedResult({
  checkRuns: [{ kind: "test", command: "make test", status: "pre-existing", onBase: "go.mod file not found" }],
});

describe("createCommitAhead: the commit sent while git makes it", () => {
  it("sends what the run would publish through the API, once, and hands the answer to the publish step", async () => {
    const g = github();
    const ahead = setup(runRequest({ target: prTarget() }), g.gh)!;
    expect(ahead.sent()).toBeNull();
    expect(ahead.port.offer(changes, changedResult(), local)).toBe(true);
    expect(ahead.port.offer(changes, changedResult(), local)).toBe(false);
    await expect(ahead.sent()!.made).resolves.toEqual({ kind: "made", oid: "d".repeat(40), verified: true });
    expect(ahead.sent()!.commitLocally).toBe(local);
    expect(g.calls).toEqual(["create feature"]);
    expect(g.sent[0]).toMatchObject({
      branch: "feature",
      expectedHeadOid: parent,
      message: { headline: "fix: add", body: "Co-authored-by: ann <ann@example.com>" },
      fileChanges: { additions: [{ path: "src/calc.py", contents: Buffer.from("a+b\n").toString("base64") }] },
    });
  });

  it("creates an issue run's branch at the parent before the commit", async () => {
    const g = github();
    const ahead = setup(runRequest({ target: issueTarget() }), g.gh)!;
    expect(ahead.port.offer(changes, changedResult(), local)).toBe(true);
    await ahead.sent()!.made;
    expect(g.calls).toEqual(["branch feature@a", "create feature"]);
  });

  it("is not made where the run does not publish through the API: git signing, no API, a fork, another verb", () => {
    const g = github();
    expect(setup(runRequest({ settings: runSettings({ commitSigning: "git" }) }), g.gh)).toBeNull();
    expect(setup(runRequest(), {} as RunGitHub)).toBeNull();
    expect(setup(runRequest({ target: prTarget({ isFork: true }) }), g.gh)).toBeNull();
    expect(setup(runRequest({ verb: "ask" }), g.gh)).toBeNull();
  });

  it("sends nothing for a change the run keeps back, a stopped run, or a commit the API cannot express", () => {
    const g = github();
    const strict = setup(runRequest({ settings: runSettings({ requireGreenChecks: true }) }), g.gh)!;
    expect(strict.port.offer(changes, unchecked, local)).toBe(false);
    expect(strict.sent()).toBeNull();

    const controller = new AbortController();
    const stopped = setup(runRequest(), g.gh, controller)!;
    controller.abort();
    expect(stopped.port.offer(changes, changedResult(), local)).toBe(false);

    const link: CommitChanges = {
      ...changes,
      entries: [{ status: "A", srcMode: "000000", dstMode: "120000", dstOid: "e".repeat(40), path: "link" }],
      contents: new Map(),
    };
    const plain = setup(runRequest(), g.gh)!;
    expect(plain.port.offer(link, changedResult(), local)).toBe(false);
    expect(plain.sent()).toBeNull();
    expect(g.calls).toEqual([]);
  });

  it("a change require_green_checks allows (one check judged it) is sent", () => {
    const g = github();
    const strict = setup(runRequest({ settings: runSettings({ requireGreenChecks: true }) }), g.gh)!;
    const judged = changedResult({ checkRuns: [{ kind: "test", command: "make test", status: "passed" }] });
    expect(strict.port.offer(changes, judged, local)).toBe(true);
  });
});

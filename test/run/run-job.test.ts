import pino from "pino";
import type { CoderResult } from "../../src/coder/types.js";
import { renderFinal, renderStage } from "../../src/report/render-status.js";
import { runJob } from "../../src/run/run-job.js";
import type { RunJobDeps } from "../../src/run/run-job-deps.js";
import type { RunOutcome } from "../../src/run/run-outcome.js";
import { RUN_STAGES } from "../../src/run-stages.js";
import type { MetricEvent } from "../../src/metrics/metric-event.js";
import { setMetricSink } from "../../src/metrics/record-metric.js";
import type { RunGit, RunGitHub } from "../../src/run/run-ports.js";
import type { RunRequest } from "../../src/run/run-request.js";
import { branchTarget, changedResult, commitChanges, runSettings } from "../../testkit/builders/run-fixtures.js";
import { pollUntil } from "../helpers/wait-until.js";

const settings = runSettings();
const prTarget = {
  kind: "pull-request" as const,
  number: 4,
  headRef: "feat",
  headSha: "a".repeat(40),
  headCloneUrl: "https://git/acme/w.git",
  isFork: false,
};
const request = (over: Partial<RunRequest> = {}): RunRequest => ({
  jobId: "j1",
  deliveryId: "j1",
  owner: "acme",
  repo: "w",
  installationId: 1,
  cloneUrl: "https://git/acme/w.git",
  defaultBranch: "main",
  target: prTarget,
  verb: "run",
  message: "do it",
  untrustedContext: [],
  files: [],
  requester: { login: "ann", id: 3 },
  settings,
  ...over,
});
const changed = changedResult();

/** The harness's git, with a clone that tells `commit` at once and writes its files when `writing` settles. */
function tellingClone(h: ReturnType<typeof harness>, commit: string, writing: Promise<void>): RunGit {
  return {
    ...h.deps.git,
    clone: async (r) => {
      h.calls.push(`clone ${r.branch}`);
      r.onTree?.(commit);
      await writing;
      return { tree: commit };
    },
  };
}

function harness(coder: RunJobDeps["coder"], controller = new AbortController(), clock = { now: 0 }) {
  const calls: string[] = [];
  const statuses: string[] = [];
  const github: RunGitHub = {
    updateStatus: async (b) => void statuses.push(b),
    react: async (c) => void calls.push(`react ${c}`),
    startCheckRun: async () => 7,
    finishCheckRun: async (_id, r) => void calls.push(`check ${r.conclusion}`),
    openPullRequest: async (pr) => (
      calls.push(`pr ${pr.branch} -> ${pr.base} draft=${pr.draft} fixes #${pr.issue.number} for ${pr.requester.login}`),
      { number: 12, url: "https://x/pull/12" }
    ),
    replyToReviewComment: async () => void calls.push("reply"),
    installationToken: async () => "ghs_secret",
    commitUrl: (sha) => `https://x/commit/${sha}`,
  };
  const git: RunGit = {
    clone: async (r) => void calls.push(`clone ${r.branch}`),
    headSha: async () => (calls.push("rev-parse"), "b".repeat(40)),
    createBranch: async (_d, b) => void calls.push(`branch ${b}`),
    push: async (r) => void calls.push(`push ${r.branch}`),
    commitPaths: async () => "d".repeat(40),
    recentCommits: async () => [],
    revert: async () => "e".repeat(40),
    formatPatch: async (_d, base) => (calls.push(`patch since ${base.slice(0, 1)}`), "From x\n+patch"),
  };
  const removed: string[] = [];
  const deps: RunJobDeps = {
    github,
    git,
    coder,
    tempDir: { create: async () => "/tmp/fake-job", remove: async (d) => void removed.push(d) },
    render: { stage: renderStage, final: renderFinal },
    logger: pino({ level: "silent" }),
    now: () => clock.now,
    signal: controller.signal,
  };
  return { deps, calls, statuses, removed };
}

describe("runJob", () => {
  it("pushes the coder's commit to the PR branch and reports success", async () => {
    const h = harness(async () => changed);
    const out = await runJob(request(), h.deps);
    expect(out.kind).toBe("pushed");
    expect(h.calls).toEqual(["clone feat", "push feat", "react rocket", "check success"]);
    expect(h.statuses.at(-1)).toContain("🚀 Pushed");
    expect(h.removed).toEqual(["/tmp/fake-job"]);
  });

  it("a run on a branch without a pull request pushes to it and names the branch, never a #0, in its log and transcript", async () => {
    const h = harness(async (_root, _options, hooks) => {
      hooks.onTranscript?.({ kind: "reply", round: 1, text: "done" });
      return changed;
    });
    const texts: (string | undefined)[] = [];
    h.deps.github.finishCheckRun = async (_id, r) => void texts.push(r.text);
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const out = await runJob(request({ target: branchTarget({ headRef: "feat" }) }), { ...h.deps, logger });
    expect(out.kind).toBe("pushed");
    expect(h.calls).toEqual(["clone feat", "push feat", "react rocket"]);
    expect(texts[0]).toContain("Run transcript · acme/w `feat` · run j1");
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      expect(l).toMatchObject({ branch: "feat" });
      expect(l).not.toHaveProperty("number");
    }
  });

  it("opens a draft PR for an issue on a new branch, leaving its wording to the GitHub side", async () => {
    const h = harness(async () => changed);
    const out = await runJob(request({ target: { kind: "issue", number: 5, title: "Fix the thing" } }), h.deps);
    expect(out.kind).toBe("pull-request");
    expect(h.calls).toEqual([
      "clone main",
      "branch aider/issue-5-fix-the-thing",
      "push aider/issue-5-fix-the-thing",
      "pr aider/issue-5-fix-the-thing -> main draft=true fixes #5 for ann",
      "react rocket",
    ]);
  });

  it("coalesces stage edits: stages within the gap make one write for the first and none after, then the final one", async () => {
    const clock = { now: 0 };
    const h = harness(
      async (_root, _options, hooks) => {
        for (const stage of ["mapping", "thinking", "applying", "lint", "test", "committing"] as const) {
          clock.now += 100;
          hooks.onProgress({ stage } as Parameters<typeof hooks.onProgress>[0]);
        }
        return changed;
      },
      undefined,
      clock,
    );
    await runJob(request(), { ...h.deps, statusGapMs: 60_000 });
    expect(h.statuses).toHaveLength(2);
    expect(h.statuses[0]).toContain("⏳ **cloning**");
    expect(h.statuses[1]).toContain("🚀 Pushed");
  });

  it("writes the latest stage once the gap has passed, in order, before the final one", async () => {
    const clock = { now: 0 };
    const h = harness(
      async (_root, _options, hooks) => {
        clock.now += 10;
        hooks.onProgress({ stage: "mapping" } as Parameters<typeof hooks.onProgress>[0]);
        clock.now += 1_000;
        hooks.onProgress({ stage: "thinking" } as Parameters<typeof hooks.onProgress>[0]);
        return changed;
      },
      undefined,
      clock,
    );
    await runJob(request(), { ...h.deps, statusGapMs: 500 });
    expect(h.statuses.map((b) => /⏳ \*\*(\w+)\*\*/.exec(b)?.[1] ?? "final")).toEqual(["cloning", "thinking", "final"]);
  });

  it("a shutdown ends with a status that says the job will run again, without 😕 or completing the Check Run", async () => {
    const controller = new AbortController();
    const h = harness(async () => {
      controller.abort(Object.assign(new Error("shutting down"), { reason: "shutdown" }));
      return { ...changed, outcome: "timed-out", message: "stopped", editedFiles: [] } as CoderResult;
    }, controller);
    const out = await runJob(request(), h.deps);
    expect(out).toMatchObject({ kind: "cancelled", reason: "shutdown" });
    expect(h.calls).toEqual(["clone feat"]);
    expect(h.statuses.at(-1)).toContain("starts again from a fresh clone");
  });

  it("starts the Check Run while cloning, and a failed final write stops none of the others", async () => {
    const h = harness(async () => changed);
    let cloneStarted = false;
    let cloneBeganFirst = false;
    const out = await runJob(request(), {
      ...h.deps,
      github: {
        ...h.deps.github,
        // Answers only once the clone has begun: a run that awaited it before cloning never would.
        startCheckRun: async () => {
          cloneBeganFirst = await pollUntil(() => cloneStarted);
          return 7;
        },
        react: async () => Promise.reject(new Error("reactions are down")),
      },
      git: { ...h.deps.git, clone: async (r) => void ((cloneStarted = true), h.calls.push(`clone ${r.branch}`)) },
    });
    expect(out).toMatchObject({ kind: "pushed" });
    expect(cloneBeganFirst).toBe(true);
    expect(h.calls).toEqual(["clone feat", "push feat", "check success"]);
    expect(h.statuses.at(-1)).toContain("🚀");
  });

  it("a checkout that cannot be made (no work dir) still ends in a final status comment", async () => {
    const h = harness(async () => changed);
    const out = await runJob(request(), {
      ...h.deps,
      tempDir: {
        create: async () =>
          Promise.reject(new Error("ENOENT: no such file or directory, mkdtemp '/nope/aider-bot-job-'")),
        remove: async () => undefined,
      },
    });
    expect(out).toMatchObject({ kind: "error" });
    expect(h.statuses.at(-1)).toContain("The run failed: ENOENT");
    expect(h.calls).toEqual(["react confused", "check failure"]);
  });

  it("starts the coder once git has the commit, while the files are written; the folder is removed only after", async () => {
    const c = "c".repeat(40);
    let write!: () => void;
    const writing = new Promise<void>((resolve) => (write = resolve));
    const seen: string[] = [];
    const h = harness(async (_root, _options, hooks) => {
      seen.push(`coder with ${hooks.pending?.commit.slice(0, 1) ?? "no"} pending`);
      write();
      await hooks.pending?.written;
      seen.push("files written");
      return changed;
    });
    const out = await runJob(request(), {
      ...h.deps,
      git: tellingClone(h, c, writing),
    });
    expect(out.kind).toBe("pushed");
    expect(seen).toEqual(["coder with c pending", "files written"]);
    expect(h.removed).toEqual(["/tmp/fake-job"]);
  });

  it("a checkout that cannot be written once the coder started fails the run with the clone's error, whatever the coder made", async () => {
    const h = harness(async (_root, _options, hooks) => {
      expect(hooks.pending).toBeDefined();
      return changed;
    });
    const out = await runJob(request(), {
      ...h.deps,
      git: {
        ...h.deps.git,
        clone: async (r) => {
          r.onTree?.("c".repeat(40));
          throw new Error("git clone failed: could not read from the remote repository");
        },
      },
    });
    expect(out).toMatchObject({ kind: "error" });
    expect(h.statuses.at(-1)).toContain("The run failed: git clone failed: could not read from the remote repository");
    expect(h.calls).toEqual(["react confused", "check failure"]);
  });

  it("an issue run's branch is made once the files are written, before the coder's files are read", async () => {
    let started!: () => void;
    const coderStarted = new Promise<void>((resolve) => (started = resolve));
    const h = harness(async (_root, _options, hooks) => {
      h.calls.push("coder");
      started();
      await hooks.pending?.written;
      h.calls.push("files");
      return changed;
    });
    await runJob(request({ target: { kind: "issue", number: 5, title: "Fix the thing" } }), {
      ...h.deps,
      git: {
        ...h.deps.git,
        clone: async (r) => {
          h.calls.push(`clone ${r.branch}`);
          r.onTree?.("c".repeat(40));
          // The files are written while the coder has started.
          await coderStarted;
          return { tree: "c".repeat(40) };
        },
      },
    });
    expect(h.calls.slice(0, 4)).toEqual(["clone main", "coder", "branch aider/issue-5-fix-the-thing", "files"]);
  });

  it("asks for the check plan and the context once the clone has started, not before", async () => {
    const h = harness(async () => changed);
    const plan: NonNullable<RunOutcome["checks"]> = {
      origin: "none",
      plan: { setup: [], lint: [], test: [], toolchain: {}, excluded: [] },
    };
    await runJob(request(), {
      ...h.deps,
      checkPlan: async () => (h.calls.push("check plan"), plan),
      prContext: async () => (
        h.calls.push("context"),
        { blocks: [], details: "", files: [], autoTest: false, threads: [] }
      ),
    });
    expect(h.calls[0]).toBe("clone feat");
    expect(h.calls.slice(1, 3).sort()).toEqual(["check plan", "context"]);
  });

  it("posts a patch instead of pushing to a fork", async () => {
    const h = harness(async () => changed);
    const out = await runJob(request({ target: { ...prTarget, isFork: true } }), h.deps);
    expect(out.kind).toBe("patch");
    expect(h.calls.some((c) => c.startsWith("push"))).toBe(false);
    // The patch starts from the commit cloned, read right after the clone (before the coder commits).
    expect(h.calls.slice(0, 2)).toEqual(["clone feat", "rev-parse"]);
    expect(h.calls).toContain("patch since b");
  });

  it("a fork's pull request starts its first round while the files are written; its patch starts from that commit", async () => {
    const c = "c".repeat(40);
    let write!: () => void;
    const writing = new Promise<void>((resolve) => (write = resolve));
    const h = harness(async (_root, _options, hooks) => {
      h.calls.push(`coder with ${hooks.pending?.commit.slice(0, 1) ?? "no"} pending`);
      write();
      return changed;
    });
    const out = await runJob(request({ target: { ...prTarget, isFork: true } }), {
      ...h.deps,
      git: tellingClone(h, c, writing),
    });
    expect(out.kind).toBe("patch");
    expect(h.calls.slice(0, 2)).toEqual(["clone feat", "coder with c pending"]);
    // The commit told is the one written: no `rev-parse`, and the patch starts from it.
    expect(h.calls).not.toContain("rev-parse");
    expect(h.calls).toContain("patch since c");
  });

  it("a fork's patch starts from the commit whose files were written, when another checkout replaced the one told", async () => {
    const h = harness(async () => changed);
    const out = await runJob(request({ target: { ...prTarget, isFork: true } }), {
      ...h.deps,
      git: {
        ...h.deps.git,
        clone: async (r) => {
          r.onTree?.("c".repeat(40));
          return { tree: "d".repeat(40) };
        },
      },
    });
    expect(out.kind).toBe("patch");
    expect(h.calls).toContain("patch since d");
  });

  it("starts the warm-up of the repository's language while the branch is cloned, before the coder", async () => {
    const h = harness(async () => (h.calls.push("coder"), changed));
    await runJob(request({ language: "TypeScript" }), {
      ...h.deps,
      warmWhileCloning: (r) => void h.calls.push(`warm ${r.language}`),
    });
    expect(h.calls.slice(0, 3)).toEqual(["clone feat", "warm TypeScript", "coder"]);
  });

  it("reads the cloned commit for an undo, which checks the branch against it", async () => {
    const h = harness(async () => changed);
    await runJob(request({ verb: "undo" }), h.deps);
    expect(h.calls.slice(0, 2)).toEqual(["clone feat", "rev-parse"]);
  });

  it("the checkout is removed while the outcome is reported, and the run ends only once it is gone", async () => {
    const h = harness(async () => changed);
    let finishRemoval!: () => void;
    const removal = new Promise<void>((resolve) => (finishRemoval = resolve));
    let ended = false;
    const run = runJob(request(), {
      ...h.deps,
      tempDir: { create: async () => "/tmp/fake-job", remove: () => removal },
    }).then(() => (ended = true));
    for (let i = 0; i < 50 && !h.statuses.some((s) => s.includes("🚀 Pushed")); i++)
      await new Promise((r) => setImmediate(r));
    expect(h.statuses.at(-1)).toContain("🚀 Pushed");
    expect(ended).toBe(false);
    finishRemoval();
    await run;
    expect(ended).toBe(true);
  });

  it("work the coder left running on the checkout (the base's run) is stopped when the phases end, and the checkout removed only once it is over", async () => {
    const order: string[] = [];
    let endWork!: () => void;
    const workDone = new Promise<void>((resolve) => (endWork = resolve));
    const h = harness(async (_root, _options, hooks) => {
      hooks.keep?.({
        stop: () => {
          order.push("stopped");
          // Its processes take a moment to go: the removal must wait for that.
          setImmediate(() => (order.push("work over"), endWork()));
        },
        done: workDone,
      });
      return changed;
    });
    const out = await runJob(request(), {
      ...h.deps,
      tempDir: { create: async () => "/tmp/fake-job", remove: async () => void order.push("removed") },
    });
    expect(out.kind).toBe("pushed");
    expect(order).toEqual(["stopped", "work over", "removed"]);
  });

  it("reports a cancellation as such and pushes nothing", async () => {
    const controller = new AbortController();
    const h = harness(async () => {
      controller.abort(new Error("cancelled"));
      return { ...changed, outcome: "timed-out", message: "The run was cancelled.", editedFiles: [] } as CoderResult;
    }, controller);
    const out = await runJob(request(), h.deps);
    expect(out).toMatchObject({ kind: "cancelled", reason: "cancel" });
    expect(h.calls).toEqual(["clone feat", "react confused", "check failure"]);
    expect(h.statuses.at(-1)).toContain("Cancelled on request");
  });

  it("a commit GitHub was asked to make while git made it is published and reported, even when a stop came meanwhile", async () => {
    const controller = new AbortController();
    const ahead = commitChanges();
    const h = harness(async (_root, _options, hooks) => {
      expect(hooks.publishAhead?.offer(ahead, changed, async () => "c".repeat(40))).toBe(true);
      controller.abort(new Error("cancelled"));
      return changed;
    }, controller);
    h.deps.github.apiCommits = {
      create: async (req) => (
        h.calls.push(`api commit ${req.branch}`),
        { kind: "made", oid: "9".repeat(40), verified: true }
      ),
      createBranch: async () => undefined,
    };
    const out = await runJob(request(), h.deps);
    expect(out).toMatchObject({ kind: "pushed", sha: "9".repeat(40) });
    expect(h.calls).toEqual(["clone feat", "api commit feat", "react rocket", "check success"]);
  });

  it("is offered no publication ahead where the run signs with git", async () => {
    let offered: unknown = "unset";
    const h = harness(async (_root, _options, hooks) => {
      offered = hooks.publishAhead;
      return changed;
    });
    h.deps.github.apiCommits = {
      create: async () => ({ kind: "moved", reason: "x" }),
      createBranch: async () => undefined,
    };
    await runJob(request({ settings: runSettings({ commitSigning: "git" }) }), h.deps);
    expect(offered).toBeUndefined();
  });

  it("turns an unexpected error into a final comment and still cleans up", async () => {
    const h = harness(async () => {
      throw new Error("disk full");
    });
    const out = await runJob(request(), h.deps);
    expect(out).toMatchObject({ kind: "error", message: "disk full" });
    expect(h.statuses.at(-1)).toContain("The run failed: disk full");
    expect(h.statuses.at(-1)).toContain("/aider retry");
    expect(h.removed).toEqual(["/tmp/fake-job"]);
    expect(h.calls).toContain("react confused");
  });
});

describe("runJob: the PR-context hooks", () => {
  const prepared = {
    blocks: [{ label: "Review threads", text: "rename x" }],
    details: "<details><summary>Context from this pull request (9 tokens)</summary></details>",
    message: "Address thread PRRT_1.",
    files: ["src/t.ts"],
    autoTest: true,
    threads: [],
  };

  it("gives the coder the prepared instruction, context blocks, files and test run; the details and after-run notes reach the final status", async () => {
    let seen: Parameters<RunJobDeps["coder"]>[1] | undefined;
    const h = harness(async (_root, options) => ((seen = options), changed));
    const order: string[] = [];
    h.deps.prContext = async (r) => (order.push(`context ${r.jobId}`), prepared);
    h.deps.afterRun = async (_r, outcome, p) => (
      order.push(`after ${outcome.kind} ${p === prepared}`),
      "**Review threads**\n- `PRRT_1`: addressed"
    );
    const out = await runJob(request({ files: ["src/a.ts"] }), h.deps);
    expect(seen).toMatchObject({
      message: "Address thread PRRT_1.",
      prContext: prepared.blocks,
      files: ["src/a.ts", "src/t.ts"],
      autoTest: true,
      reproduceTest: true,
    });
    expect(order).toEqual(["context j1", "after pushed true"]);
    expect(out.context).toBe(`**Review threads**\n- \`PRRT_1\`: addressed\n\n${prepared.details}`);
    expect(h.statuses.at(-1)).toContain("Context from this pull request (9 tokens)");
    expect(h.statuses.at(-1)).toContain("- `PRRT_1`: addressed");
  });

  it("a refusal (nothing to address) ends the run before cloning, with the reason", async () => {
    const h = harness(async () => changed);
    h.deps.prContext = async () => ({
      ...prepared,
      refuse: "There is no unresolved review thread on this pull request.",
    });
    const addressReviews = {
      mode: { kind: "address-reviews" as const, threads: [], extra: "" },
      budget: {} as never,
      resolveThreads: true,
    };
    const out = await runJob(request({ context: addressReviews }), h.deps);
    expect(out.kind).toBe("nothing-to-do");
    expect(h.calls.some((c) => c.startsWith("clone"))).toBe(false);
    expect(h.statuses.at(-1)).toContain("😕 There is no unresolved review thread on this pull request.");
  });

  it("a plain run clones while its context is still being fetched, and the coder gets the context", async () => {
    let seen: Parameters<RunJobDeps["coder"]>[1] | undefined;
    const h = harness(async (_root, options) => ((seen = options), changed));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let clonedBeforeContext = false;
    h.deps.prContext = async () => {
      // The context answers only once the clone has started: awaiting it before cloning would never finish.
      for (let i = 0; i < 100 && !h.calls.some((c) => c.startsWith("clone")); i++)
        await new Promise((r) => setImmediate(r));
      clonedBeforeContext = h.calls.some((c) => c.startsWith("clone"));
      release();
      await gate;
      return prepared;
    };
    const plain = { mode: { kind: "plain" as const }, budget: {} as never, resolveThreads: true };
    const out = await runJob(request({ context: plain }), h.deps);
    expect(clonedBeforeContext).toBe(true);
    expect(out.kind).toBe("pushed");
    expect(seen).toMatchObject({ prContext: prepared.blocks });
  });

  it("a failing context step or after-run step never fails the run", async () => {
    const h = harness(async () => changed);
    const tried: string[] = [];
    h.deps.prContext = async () => {
      tried.push("context");
      throw new Error("GitHub is down");
    };
    h.deps.afterRun = async () => {
      tried.push("after");
      throw new Error("reply failed");
    };
    const out = await runJob(request(), h.deps);
    expect(tried).toEqual(["context", "after"]);
    expect(out.kind).toBe("pushed");
    expect(out.context).toBeUndefined();
  });
});

describe("runJob: plans and transcripts", () => {
  const planAnswer: CoderResult = {
    outcome: "no-changes",
    answer: "1. edit `a.ts`",
    reflections: 0,
    tokens: { prompt: 1, completion: 1 },
    costUsd: null,
    explanation: "",
    shell: [],
    elapsedMs: 1,
  };

  it("a plan run asks in architect mode, commits nothing and leaves the plan, made on the cloned commit, as its status", async () => {
    const seen: unknown[] = [];
    const h = harness(async (_root, options) => (seen.push([options.askOnly, options.architect]), planAnswer));
    let superseded = 0;
    h.deps.github.supersedeOlderPlans = async () => void superseded++;
    const out = await runJob(request({ verb: "plan" }), {
      ...h.deps,
      render: { ...h.deps.render, plan: (o) => `PLAN on ${o.sha.slice(0, 3)}: ${o.plan}` },
    });
    expect(out).toMatchObject({ kind: "planned", plan: "1. edit `a.ts`", sha: "b".repeat(40) });
    expect(seen).toEqual([[true, true]]);
    expect(h.calls).not.toContain("push feat");
    expect(h.statuses.at(-1)).toBe("PLAN on bbb: 1. edit `a.ts`");
    expect(superseded).toBe(1);
  });

  it("an approved plan whose branch moved after triage is refused after the clone, before any model call", async () => {
    let asked = 0;
    const h = harness(async () => (asked++, changed));
    const out = await runJob(request({ plan: { id: "p", commentId: 3, sha: "a".repeat(40), text: "1. x" } }), h.deps);
    expect(out.kind).toBe("refused");
    expect(asked).toBe(0);
    expect(h.statuses.at(-1)).toContain(
      "The branch moved since this plan was made: it was made on `aaaaaaa` and the head is now `bbbbbbb`",
    );
  });

  it("the transcript goes to the Check Run's text, redacted, to the store, and the status links to it", async () => {
    const h = harness(async (_root, _options, hooks) => {
      hooks.onTranscript?.({ kind: "reply", round: 1, text: "answer with ghs_secret" });
      return changed;
    });
    const texts: (string | undefined)[] = [];
    h.deps.github.finishCheckRun = async (_id, r) => void texts.push(r.text);
    h.deps.github.checkRunUrl = (id) => `https://x/runs/${id}`;
    const stored: string[] = [];
    await runJob(request(), {
      ...h.deps,
      redact: (t) => t.replaceAll("ghs_secret", "[REDACTED]"),
      transcripts: { save: async (id, t) => void stored.push(`${id}:${t}`) },
    });
    expect(texts[0]).toContain("answer with [REDACTED]");
    expect(texts[0]).not.toContain("ghs_secret");
    expect(stored[0]).toMatch(/^j1:# Run transcript/);
    expect(h.statuses.at(-1)).toContain("📜 [Run transcript](https://x/runs/7)");
    expect(h.statuses.at(-1)).toContain("aider-bot transcript j1");
  });
  it("the transcript is stored while the change is published (the push under way), and once only", async () => {
    const h = harness(async (_root, _options, hooks) => {
      hooks.onTranscript?.({ kind: "reply", round: 1, text: "the answer" });
      return changed;
    });
    // A push takes a few turns of the event loop, as git's process does: the transcript is stored meanwhile.
    h.deps.git.push = async (r) => {
      for (let turn = 0; turn < 3; turn++) await new Promise((done) => setImmediate(done));
      h.calls.push(`push ${r.branch}`);
    };
    await runJob(request(), {
      ...h.deps,
      transcripts: { save: async (id) => void h.calls.push(`stored ${id}`) },
    });
    expect(h.calls).toEqual(["clone feat", "stored j1", "push feat", "react rocket", "check success"]);
  });

  it("an event recorded after the coder returned still reaches the stored transcript", async () => {
    let late: ((e: { kind: "reply"; round: number; text: string }) => void) | undefined;
    const h = harness(async (_root, _options, hooks) => {
      late = hooks.onTranscript;
      hooks.onTranscript?.({ kind: "reply", round: 1, text: "first" });
      return changed;
    });
    const stored: string[] = [];
    h.deps.git.push = async () => late?.({ kind: "reply", round: 2, text: "after the coder" });
    await runJob(request(), { ...h.deps, transcripts: { save: async (_id, t) => void stored.push(t) } });
    expect(stored.at(-1)).toContain("after the coder");
  });

  it("a failed setup command is named as setup in the Check Run's title, not as failing checks", async () => {
    const { commit: _c, ...rest } = changed;
    const setupFailed: CoderResult = {
      ...rest,
      outcome: "checks-failed",
      report: { kind: "setup", ok: false, command: "uv sync", output: "uv: not found", locations: [], exitCode: 127 },
    };
    const h = harness(async () => setupFailed);
    const titles: string[] = [];
    h.deps.github.finishCheckRun = async (_id, r) => void titles.push(`${r.conclusion}: ${r.title}`);
    await runJob(request(), h.deps);
    expect(titles).toEqual(["failure: Changes pushed unchecked; a setup command failed"]);
    await runJob(request({ settings: { ...settings, requireGreenChecks: true } }), h.deps);
    expect(titles[1]).toBe("failure: No changes pushed (a setup command failed)");
  });
  it("a change no check could judge (its test fails on the default branch too) is pushed only where green checks are not required", async () => {
    const unchecked: CoderResult = {
      ...changed,
      checkRuns: [{ kind: "test", command: "make test", status: "pre-existing", onBase: "go.mod file not found" }],
    };
    const lenient = harness(async () => unchecked);
    expect((await runJob(request(), lenient.deps)).kind).toBe("pushed");
    const strict = harness(async () => unchecked);
    const out = await runJob(request({ settings: { ...settings, requireGreenChecks: true } }), strict.deps);
    expect(out.kind).toBe("not-pushed");
    expect(strict.calls).not.toContain("push feat");
    expect(strict.statuses.at(-1)).toContain("the change is **unchecked**");
  });
});

describe("runJob: one outcome, one set of stage names", () => {
  it("builds the outcome once: the phases' ending, the check plan and the report's notes in one frozen object", async () => {
    const h = harness(async () => changed);
    const seen: unknown[] = [];
    const checks: NonNullable<RunOutcome["checks"]> = {
      origin: "none",
      plan: { setup: [], lint: [], test: [], toolchain: {}, excluded: [] },
    };
    const out = await runJob(request(), {
      ...h.deps,
      checkPlan: async () => checks,
      prContext: async () => ({ blocks: [], details: "context details", files: [], autoTest: false, threads: [] }),
      afterRun: async (_req, ending) => (seen.push(ending), "after-run note"),
      render: { stage: renderStage, final: (o, r) => (seen.push(o), renderFinal(o, r)) },
    });
    expect(Object.isFrozen(out)).toBe(true);
    // The after-run step gets how the phases ended; the report gets the one outcome the run returns.
    expect(seen[0]).not.toHaveProperty("elapsedMs");
    expect(seen[1]).toBe(out);
    expect(out).toMatchObject({ kind: "pushed", checks, context: "after-run note\n\ncontext details" });
  });

  it("moves through the stages of RUN_STAGES, logs each with its phase and times each one for the metrics", async () => {
    const clock = { now: 0 };
    const h = harness(
      async (_root, _options, hooks) => {
        for (const stage of ["mapping", "thinking", "applying", "syntax", "test"] as const) {
          clock.now += 1_000;
          hooks.onProgress({ stage } as Parameters<typeof hooks.onProgress>[0]);
        }
        clock.now += 1_000;
        return changed;
      },
      undefined,
      clock,
    );
    const lines: { stage?: string; phase?: string | null }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const metrics: MetricEvent[] = [];
    const previous = setMetricSink((m) => void metrics.push(m));
    try {
      await runJob(request(), { ...h.deps, logger });
    } finally {
      setMetricSink(previous);
    }
    const logged = lines.filter((l) => l.stage !== undefined);
    expect(logged.map((l) => [l.stage, l.phase])).toEqual([
      ["cloning", "prepare"],
      ["mapping", "code"],
      ["thinking", "code"],
      ["applying", "code"],
      ["lint", "code"],
      ["tests", "code"],
      ["pushing", "publish"],
    ]);
    for (const l of logged) expect(RUN_STAGES).toContain(l.stage);
    const timed = metrics.filter((m) => m.type === "run-stage");
    expect(timed.map((m) => m.stage)).toEqual(logged.map((l) => l.stage));
    expect(timed.find((m) => m.stage === "thinking")?.seconds).toBe(1);
  });
});

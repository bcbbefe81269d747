import { describe, expect, it } from "@jest/globals";
import { contentDiff, sameContents, startEarlySubject } from "../../src/coder/early-subject.js";
import { runCoder } from "../../src/coder/run-coder.js";
import { block } from "./helpers/fake-engine.js";
import { coderOptions, fakeDeps, type FakeDeps } from "./helpers/fake-deps.js";

const FETCH =
  "export async function fetchJson(url: string) {\n  const res = await fetch(url);\n  return res.json();\n}\n";
const files = { "src/fetch.ts": FETCH, "src/util.ts": "export const x = 1;\n" };
const edit = (from: string, to: string) => `Retrying.\n\n${block("src/fetch.ts", from, to)}`;
const first = edit("  const res = await fetch(url);\n", "  const res = await retry(() => fetch(url));\n");
const second = edit("  return res.json();\n", "  return (await res.json()) as unknown;\n");

/** A commit-message model that records each call (diff, signal, and what had happened before it). */
function recordingModel(
  deps: FakeDeps,
  events: string[],
  answer: (n: number) => string | null = (n) => `fix: subject ${n}`,
) {
  const calls: { diff: string; context: string; signal: AbortSignal | undefined }[] = [];
  deps.generateCommitMessage = async (diff, context, signal) => {
    calls.push({ diff, context, signal });
    events.push(`subject asked (${calls.length})`);
    return answer(calls.length);
  };
  return calls;
}

/** Checks that let pending work run before they answer, and say what had been asked by then. */
function checksThatWait(
  deps: FakeDeps,
  events: string[],
  outcome: (kind: string, nth: number) => { ok: boolean; output?: string } = () => ({ ok: true }),
) {
  let n = 0;
  deps.runCheck = async (req) => {
    const nth = ++n;
    events.push(`${req.kind} started`);
    await new Promise((resolve) => setImmediate(resolve));
    events.push(`${req.kind} ended`);
    const { ok, output = "" } = outcome(req.kind, nth);
    return { kind: req.kind === "setup" ? "test" : req.kind, ok, command: req.command, output, locations: [] };
  };
}

describe("a commit subject asked for while the checks run", () => {
  it("is asked while the test command runs, once, and names the commit when the tests pass", async () => {
    const deps = fakeDeps({ files, answers: [first] });
    const events: string[] = [];
    const calls = recordingModel(deps, events);
    checksThatWait(deps, events);
    const result = await runCoder(coderOptions({ autoTest: true, testCommand: "npm test" }), deps);
    // Asked before the test command has finished (it starts with the checks), not after it.
    expect(events.filter((e) => e !== "test started")).toEqual(["subject asked (1)", "test ended"]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.diff).toBe(
      "diff --git a/src/fetch.ts b/src/fetch.ts\n--- a/src/fetch.ts\n+++ b/src/fetch.ts\n@@ -1,4 +1,4 @@\n export async function fetchJson(url: string) {\n-  const res = await fetch(url);\n+  const res = await retry(() => fetch(url));\n   return res.json();\n }\n",
    );
    expect(calls[0]!.context).toBe("add retry logic to fetch client\n\nRetrying.");
    expect(result.outcome).toBe("changed");
    expect(deps.commits.map((c) => c.subject)).toEqual(["fix: subject 1"]);
  });

  it("is stopped when the tests fail, and the round that passes asks again", async () => {
    const deps = fakeDeps({ files, answers: [first, second] });
    const events: string[] = [];
    const calls = recordingModel(deps, events);
    checksThatWait(deps, events, (_kind, nth) => (nth === 1 ? { ok: false, output: "FAIL" } : { ok: true }));
    await runCoder(coderOptions({ autoTest: true, testCommand: "npm test" }), deps);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.signal?.aborted).toBe(true);
    expect(calls[1]!.signal?.aborted).toBe(false);
    expect(deps.commits.map((c) => c.subject)).toEqual(["fix: subject 2"]);
  });

  it("is not used when a command changed an edited file: the commit asks again, with the diff it commits", async () => {
    const deps = fakeDeps({ files, answers: [first] });
    const events: string[] = [];
    const calls = recordingModel(deps, events);
    // An autofixing lint command rewrites the edited file while the subject is being asked for.
    deps.runCheck = async (req) => {
      await new Promise((resolve) => setImmediate(resolve));
      deps.workspace.files.set("src/fetch.ts", `${deps.workspace.files.get("src/fetch.ts")}// fixed by the linter\n`);
      return { kind: "lint", ok: true, command: req.command, output: "", locations: [] };
    };
    await runCoder(coderOptions({ lintCommands: ["eslint --fix"] }), deps);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.diff).not.toContain("fixed by the linter");
    // The second ask is the commit path's own (its diff is the fake git diff), without the early call's signal.
    expect(calls[1]!).toMatchObject({ diff: "diff --git a/src/fetch.ts b/src/fetch.ts", signal: undefined });
    expect(deps.commits.map((c) => c.subject)).toEqual(["fix: subject 2"]);
  });

  it("offers its diff to the commit when the files are as it saw them, and not when a command changed one", async () => {
    const offers: unknown[] = [];
    const withPrepare = (deps: FakeDeps) => {
      deps.prepareCommit = async (paths, made) => {
        offers.push(made ?? null);
        return {
          diff: "git's diff",
          commit: async (req) => ({
            sha: "f".repeat(40),
            subject: req.subject,
            stats: paths.map((path) => ({ path, added: 1, removed: 1 })),
          }),
        };
      };
    };
    const clean = fakeDeps({ files, answers: [first] });
    recordingModel(clean, []);
    checksThatWait(clean, []);
    withPrepare(clean);
    await runCoder(coderOptions({ autoTest: true, testCommand: "npm test" }), clean);
    expect(offers).toEqual([
      {
        diff: expect.stringContaining("+  const res = await retry(() => fetch(url));"),
        from: new Map([["src/fetch.ts", FETCH]]),
      },
    ]);

    const changed = fakeDeps({ files, answers: [first] });
    recordingModel(changed, []);
    withPrepare(changed);
    changed.runCheck = async (req) => {
      changed.workspace.files.set("src/fetch.ts", "rewritten by the linter\n");
      return { kind: "lint", ok: true, command: req.command, output: "", locations: [] };
    };
    await runCoder(coderOptions({ lintCommands: ["eslint --fix"] }), changed);
    expect(offers.at(-1)).toBeNull();
  });

  it("is not asked when no command runs (nothing to overlap): the commit asks, as before", async () => {
    const deps = fakeDeps({ files, answers: [first] });
    const events: string[] = [];
    const calls = recordingModel(deps, events);
    await runCoder(coderOptions(), deps);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.signal).toBeUndefined();
    expect(deps.commits.map((c) => c.subject)).toEqual(["fix: subject 1"]);
  });

  it("a call that failed gives the deterministic subject without a second call, as a failed call at commit time does", async () => {
    const deps = fakeDeps({ files, answers: [first] });
    const events: string[] = [];
    const calls = recordingModel(deps, events, () => null);
    checksThatWait(deps, events);
    await runCoder(coderOptions({ autoTest: true, testCommand: "npm test" }), deps);
    expect(calls).toHaveLength(1);
    expect(deps.commits.map((c) => c.subject)).toEqual(["feat: add retry logic to fetch client"]);
  });

  it("is not asked when the run does not commit", async () => {
    const deps = fakeDeps({ files, answers: [first] });
    const events: string[] = [];
    const calls = recordingModel(deps, events);
    checksThatWait(deps, events);
    await runCoder(coderOptions({ autoTest: true, testCommand: "npm test", commit: false }), deps);
    expect(calls).toHaveLength(0);
  });
});

describe("startEarlySubject", () => {
  const model = (answer: () => Promise<string | null>) => {
    const asked: { diff: string; signal: AbortSignal | undefined }[] = [];
    return {
      asked,
      generateCommitMessage: async (diff: string, _c: string, signal?: AbortSignal) => (
        asked.push({ diff, signal }),
        answer()
      ),
    };
  };
  const before = new Map<string, string | null>([["a.ts", "one\n"]]);
  const after = new Map<string, string | null>([["a.ts", "two\n"]]);

  it("is asked once, for the diff from the files before to after, and matches only while they are as after", async () => {
    const m = model(async () => "feat: x");
    const early = startEarlySubject(m, before, after, "C")!;
    expect(await early.subject).toBe("feat: x");
    expect(early.diff).toBe(contentDiff(before, after));
    expect(early.before).toBe(before);
    expect(early.matches(new Map([["a.ts", "two\n"]]))).toBe(true);
    expect(early.matches(new Map([["a.ts", "two\nthree\n"]]))).toBe(false);
    expect(early.matches(new Map())).toBe(false);
    expect(m.asked).toEqual([{ diff: early.diff, signal: expect.any(AbortSignal) }]);
  });

  it("asks nothing without a commit-message model, or when nothing changed", () => {
    expect(startEarlySubject({}, before, after, "C")).toBeNull();
    const m = model(async () => "feat: x");
    expect(startEarlySubject(m, before, before, "C")).toBeNull();
    expect(m.asked).toHaveLength(0);
  });

  it("a throwing model is a failed call (null), not an unusable one", async () => {
    const early = startEarlySubject(
      { generateCommitMessage: async () => Promise.reject(new Error("boom")) },
      before,
      after,
      "C",
    )!;
    expect(await early.subject).toBeNull();
  });

  it("the run's cancellation and abort() both stop the call", async () => {
    const run = new AbortController();
    const m = model(async () => "feat: x");
    startEarlySubject({ ...m, signal: run.signal }, before, after, "C");
    run.abort();
    expect(m.asked[0]!.signal!.aborted).toBe(true);
    const other = startEarlySubject({ ...m, signal: new AbortController().signal }, before, after, "C")!;
    expect(m.asked[1]!.signal!.aborted).toBe(false);
    other.abort();
    expect(m.asked[1]!.signal!.aborted).toBe(true);
  });
});

describe("contentDiff", () => {
  it("names new files first, then a unified diff per file in path order, deletions included", () => {
    const was = new Map<string, string | null>([
      ["b.ts", "x\n"],
      ["c.ts", "gone\n"],
      ["new.ts", null],
    ]);
    const now = new Map<string, string | null>([
      ["b.ts", "y\n"],
      ["c.ts", null],
      ["new.ts", "hi\n"],
    ]);
    expect(contentDiff(was, now)).toBe(
      [
        "Added new.ts\n",
        "diff --git a/b.ts b/b.ts\n--- a/b.ts\n+++ b/b.ts\n@@ -1,1 +1,1 @@\n-x\n+y\n",
        "diff --git a/c.ts b/c.ts\n--- a/c.ts\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-gone\n",
        "diff --git a/new.ts b/new.ts\n--- /dev/null\n+++ b/new.ts\n@@ -0,0 +1,1 @@\n+hi\n",
      ].join(""),
    );
  });

  it("is null when nothing changed, and for a change too large to diff here (the commit then asks itself)", () => {
    expect(contentDiff(new Map([["a", "x"]]), new Map([["a", "x"]]))).toBeNull();
    const huge = "line\n".repeat(250_000);
    expect(contentDiff(new Map([["a", huge]]), new Map([["a", `${huge}more\n`]]))).toBeNull();
    const rewritten = Array.from({ length: 6_000 }, (_, i) => `${i}\n`).join("");
    expect(contentDiff(new Map([["a", rewritten]]), new Map([["a", rewritten.replace(/\d/g, "x")]]))).toBeNull();
  });

  it("sameContents: every expected file as expected, absent meaning null", () => {
    expect(sameContents(new Map([["a", null]]), new Map())).toBe(true);
    expect(
      sameContents(
        new Map([["a", "x"]]),
        new Map([
          ["a", "x"],
          ["b", "y"],
        ]),
      ),
    ).toBe(true);
    expect(sameContents(new Map([["a", "x"]]), new Map([["a", "y"]]))).toBe(false);
  });
});

import { cut, renderTranscript } from "../../../src/coder/transcript/render-transcript.js";
import { createTranscriptRecorder } from "../../../src/coder/transcript/transcript-recorder.js";

function sampleRun(fileSize: number) {
  const r = createTranscriptRecorder();
  const sink = r.sink();
  const system = { role: "system" as const, content: "You are an expert." };
  const file = { role: "user" as const, content: `a.py\n${"x = 1\n".repeat(fileSize / 6)}` };
  sink({ kind: "request", round: 1, model: "m", messages: [system, file, { role: "user", content: "fix it" }] });
  sink({
    kind: "reply",
    round: 1,
    text: "ANSWER_ONE ```nested```",
    finishReason: "stop",
    tokens: { prompt: 10, completion: 5, cacheRead: 8, cacheWrite: 2 },
  });
  sink({
    kind: "edits",
    round: 1,
    written: ["a.py"],
    deleted: [],
    failures: [{ path: "b.py", message: "no match\nmore" }],
    reflection: "# 1 SEARCH/REPLACE block failed",
  });
  sink({
    kind: "check",
    round: 1,
    check: "test",
    command: "pytest",
    ok: false,
    exitCode: 1,
    output: "TEST_FAILED at a.py:1",
  });
  sink({
    kind: "request",
    round: 2,
    model: "m",
    messages: [system, file, { role: "user", content: "TEST_FAILED at a.py:1" }],
  });
  return r.events();
}

describe("renderTranscript", () => {
  it("tells each round: the messages (repeats named, not repeated), answers, edits and checks", () => {
    const text = renderTranscript(sampleRun(600), { limit: 65_535, title: "Run transcript · run 7" });
    expect(text.startsWith("# Run transcript · run 7")).toBe(true);
    expect(text).toContain("## Round 1 · request to `m` (3 messages)");
    expect(text).toContain("ANSWER_ONE");
    // The fence outgrows the backticks in the answer.
    expect(text).toContain("````\nANSWER_ONE ```nested```\n````");
    expect(text).toContain("(finish: stop, 10 prompt + 5 completion tokens, 8 from cache, 2 written to cache)");
    expect(text).toContain("- ✅ edited `a.py`");
    expect(text).toContain("- ❌ `b.py`: no match");
    expect(text).toContain("### Round 1 · test `pytest`: failed, exit 1");
    expect(text).toContain("**1. system** — same as round 1, message 1");
    expect(text.split("x = 1").length - 1).toBe(100);
  });

  it("redacts every part before it measures", () => {
    const text = renderTranscript(sampleRun(60), {
      limit: 65_535,
      redact: (t) => t.replaceAll("TEST_FAILED", "[REDACTED]"),
    });
    expect(text).not.toContain("TEST_FAILED");
    expect(text).toContain("[REDACTED] at a.py:1");
  });

  it("fits the limit by cutting the longest parts first, with a note, keeping the short ones whole", () => {
    const text = renderTranscript(sampleRun(200_000), { limit: 65_535 });
    expect(text.length).toBeLessThanOrEqual(65_535);
    expect(text.length).toBeGreaterThan(60_000);
    expect(text).toMatch(/… \(\d+ characters cut\) …/);
    expect(text).toContain("TEST_FAILED at a.py:1");
    expect(text).toContain("ANSWER_ONE");
  });

  it("says when nothing was recorded", () => {
    expect(renderTranscript([], { limit: 1000 })).toContain("Nothing was recorded");
  });
});

describe("cut", () => {
  it("keeps head and tail within the cap and says how much went", () => {
    const out = cut("a".repeat(500) + "b".repeat(500), 100);
    expect(out.length).toBeLessThanOrEqual(100);
    expect(out.startsWith("a")).toBe(true);
    expect(out.endsWith("b")).toBe(true);
    expect(out).toMatch(/\(\d+ characters cut\)/);
    expect(cut("short", 100)).toBe("short");
  });
});

describe("createTranscriptRecorder", () => {
  it("tags a phase and keeps copies of the messages", () => {
    const r = createTranscriptRecorder();
    const messages = [{ role: "user" as const, content: "one" }];
    r.sink("architect")({ kind: "request", round: 1, model: "m", messages });
    messages[0]!.content = "changed";
    expect(r.events()).toEqual([
      { kind: "request", round: 1, model: "m", messages: [{ role: "user", content: "one" }], phase: "architect" },
    ]);
  });
});

import { describe, expect, it } from "@jest/globals";
import { runCoder } from "../../src/coder/run-coder.js";
import { FILES_UPDATE_PREFIX } from "../../src/coder/prompts/shared-text.js";
import { extendLayout, startLayout, withReply, markBreakpoints } from "../../src/coder/round-layout.js";
import type { ChatMessage, CompletionRequest } from "../../src/llm/types.js";
import { block } from "./helpers/fake-engine.js";
import { coderOptions, fakeDeps } from "./helpers/fake-deps.js";

const FETCH =
  "export async function fetchJson(url: string) {\n  const res = await fetch(url);\n  return res.json();\n}\n";
const UTIL = "export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\n";
const files = { "src/fetch.ts": FETCH, "src/util.ts": UTIL, "README.md": "# demo\n" };
const goodEdit = `I will retry.\n\n${block("src/fetch.ts", "  const res = await fetch(url);\n", "  const res = await retry(() => fetch(url));\n")}`;
const fixUtil = block("src/util.ts", UTIL, `${UTIL}export const retry = <T>(f: () => T) => f();\n`);
const fixAgain = block("src/util.ts", "f();\n", "f(); // once\n");

/** The messages without their cache marks, as the bytes of the prompt. */
const plain = (req: CompletionRequest) => req.messages.map(({ role, content }) => ({ role, content }));
const marks = (req: CompletionRequest) => req.messages.flatMap((m, i) => (m.cacheBreakpoint ? [i] : []));

/** A three-round run: an edit whose tests fail twice, each reflection fixing util.ts. */
async function threeRounds(overrides: Parameters<typeof coderOptions>[0] = {}) {
  const deps = fakeDeps({
    files,
    answers: [goodEdit, fixUtil, fixAgain],
    repoMap: "src/other.ts:\n  function helper",
    check: (req, nth) => (req.kind === "test" && nth <= 2 ? { ok: false, output: `FAIL ${nth}` } : {}),
  });
  const options = coderOptions({
    autoTest: true,
    testCommand: "npm test",
    files: ["src/fetch.ts", "src/util.ts"],
    readFiles: ["README.md"],
    mapTokens: 1024,
    maxReflections: 3,
    ...overrides,
  });
  const result = await runCoder(options, deps);
  return { deps, result };
}

describe("the cache-friendly round layout", () => {
  it("makes each later request a strict extension of the one before, reply included", async () => {
    const { deps, result } = await threeRounds();
    expect(result.outcome).toBe("changed");
    expect(deps.requests).toHaveLength(3);
    for (let i = 1; i < deps.requests.length; i++) {
      const before = plain(deps.requests[i - 1]!);
      const now = plain(deps.requests[i]!);
      expect(now.length).toBeGreaterThan(before.length + 1);
      expect(now.slice(0, before.length)).toEqual(before);
      // what the model answered to the previous request comes right after it
      expect(now[before.length]!.role).toBe("assistant");
    }
  });

  it("appends a file the round's edits changed as a new message, leaving the first listing as it was", async () => {
    const { deps } = await threeRounds();
    const second = plain(deps.requests[1]!);
    const firstLength = deps.requests[0]!.messages.length;
    const update = second.slice(firstLength + 1).find((m) => m.content.startsWith(FILES_UPDATE_PREFIX));
    expect(update?.role).toBe("user");
    expect(update?.content).toContain("retry(() => fetch(url))"); // fetch.ts as edited in round 1
    expect(update?.content).not.toContain("src/util.ts"); // unchanged by round 1: not sent again
    // the original listing still shows the file as it was first sent
    expect(
      second.some((m) => m.content.includes("  const res = await fetch(url);\n") && m.content.includes("src/util.ts")),
    ).toBe(true);
    const third = plain(deps.requests[2]!);
    const update3 = third.slice(second.length + 1).find((m) => m.content.startsWith(FILES_UPDATE_PREFIX));
    expect(update3?.content).toContain("export const retry"); // util.ts as round 2 left it
    expect(update3?.content).not.toContain("src/fetch.ts");
    expect(third.at(-1)!.content).toContain("FAIL 2");
  });

  it("marks at most four breakpoints: the last stable message, the previous request's end and this request's end", async () => {
    const { deps } = await threeRounds();
    const [first, second, third] = deps.requests as [CompletionRequest, CompletionRequest, CompletionRequest];
    const stableEnd = first.messages.length - 2; // the chat files' acknowledgement, before the request
    expect(first.messages[stableEnd]!.content).toMatch(/Any changes I make will be to these files/);
    expect(marks(first)).toEqual([stableEnd, first.messages.length - 1]);
    expect(marks(second)).toEqual([stableEnd, first.messages.length - 1, second.messages.length - 1]);
    expect(marks(third)).toEqual([stableEnd, second.messages.length - 1, third.messages.length - 1]);
    for (const req of deps.requests) {
      expect(marks(req).length).toBeLessThanOrEqual(4);
      expect(req.cacheKey).toBe(deps.requests[0]!.cacheKey);
      expect(req.cacheKey).toMatch(/^aider-bot-/);
    }
  });

  it("with caching off sends the same messages, without breakpoints or a cache key", async () => {
    const on = await threeRounds({ cacheKey: "k" });
    const off = await threeRounds({ promptCache: false });
    expect(off.deps.requests.map(plain)).toEqual(on.deps.requests.map(plain));
    for (const req of off.deps.requests) {
      expect(marks(req)).toEqual([]);
      expect(req.cache).toBe(false);
      expect(req.cacheKey).toBeUndefined();
    }
  });

  it("notes deleted chat files, and starts over when the files need another fence", () => {
    const fence = ["```", "```"] as const;
    const start = startLayout({
      mode: "diff",
      fence: [...fence],
      chatFiles: [
        { path: "a.ts", content: "a\n" },
        { path: "b.ts", content: "b\n" },
      ],
      readFiles: [],
      done: [],
      message: "go",
    });
    const replied = withReply(start.layout, "done");
    const next = extendLayout(replied, {
      fence: [...fence],
      chatFiles: [{ path: "a.ts", content: "a\n" }],
      instructions: null,
      message: "again",
    })!;
    expect(next.messages.slice(0, start.messages.length + 1)).toEqual([
      ...start.messages,
      { role: "assistant", content: "done" } satisfies ChatMessage,
    ]);
    expect(next.messages.at(-3)!.content).toMatch(/deleted[\s\S]*b\.ts/);
    expect(next.messages.at(-3)!.content).not.toContain("a.ts");
    expect(markBreakpoints(next.layout, next.messages).filter((m) => m.cacheBreakpoint)).toHaveLength(3);
    // The run's last call: the previous request's end is still read back, its own end is not written.
    const last = markBreakpoints(next.layout, next.messages, true);
    expect(last.filter((m) => m.cacheBreakpoint)).toHaveLength(2);
    expect(last.at(-1)!.cacheBreakpoint).toBeUndefined();
    expect(last[next.layout.lastRequestEnd]!.cacheBreakpoint).toBe(true);
    expect(
      extendLayout(replied, {
        fence: ["````", "````"],
        chatFiles: [{ path: "a.ts", content: "```\n" }],
        instructions: null,
        message: "again",
      }),
    ).toBeNull();
  });
});

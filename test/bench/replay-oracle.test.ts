import { parseAndApply } from "../../src/edits/registry.js";
import { EDIT_FORMAT_NAMES, type EditFormatName, type Fence } from "../../src/edits/types.js";
import { renderFiles } from "../../src/coder/render-files.js";
import type { RecordedRequest } from "../../testkit/scripted-llm-server.js";
import { fenceOf, NOTHING_LEFT, oracleRun, shownFile } from "../../bench/replay/oracle.js";
import {
  hunksOf,
  noiseFor,
  renderAnswer,
  renderNoisyAnswer,
  type FileChange,
} from "../../bench/replay/render-answer.js";

/**
 * The replay benchmark's oracle must be right for the benchmark to measure the bot: its clean answer, applied by the
 * bot's own engine, gives exactly the real commit's files in every format; and a noisy first answer followed by the
 * oracle's next answers (computed from the files as they then are) gets there too.
 */
const before = [
  "class Shapes:",
  "    def area(self, shape):",
  "        if shape.kind == 'square':",
  "            return shape.side * shape.side",
  "        if shape.kind == 'rectangle':",
  "            return shape.width * shape.height",
  "        if shape.kind == 'circle':",
  "            return 3.14 * shape.r * shape.r",
  "        raise ValueError(shape.kind)",
  "",
  "    def perimeter(self, shape):",
  "        if shape.kind == 'square':",
  "            return 4 * shape.side",
  "        if shape.kind == 'rectangle':",
  "            return 2 * (shape.width + shape.height)",
  "        raise ValueError(shape.kind)",
  "",
  "    def name(self, shape):",
  "        return shape.kind",
  "",
].join("\n");
const after = before
  .replace("3.14 * shape.r * shape.r", "math.pi * shape.r ** 2")
  .replace(
    "            return 2 * (shape.width + shape.height)\n",
    "            return 2 * (shape.width + shape.height)\n        if shape.kind == 'circle':\n            return 2 * math.pi * shape.r\n",
  );

const FENCE: Fence = ["```", "```"];

/** A request as the bot sends it: the fence in the system text, the files as renderFiles lists them. */
function request(files: Record<string, string>, fence: Fence = FENCE): RecordedRequest {
  const note =
    fence[0] === "````" ? "IMPORTANT: fence every code listing with FOUR backticks (````), never three." : "";
  return {
    path: "/v1/chat/completions",
    headers: {},
    body: {
      model: "m",
      messages: [
        { role: "system", content: `You edit code.\n${note}` },
        {
          role: "user",
          content: `Files:\n${renderFiles(
            Object.entries(files).map(([path, content]) => ({ path, content })),
            fence,
          )}`,
        },
        { role: "assistant", content: "Ok." },
        { role: "user", content: "Do it." },
      ],
    },
  };
}

function apply(format: EditFormatName, answer: string, files: Map<string, string>, fence: Fence = FENCE) {
  const result = parseAndApply(format, answer, { files }, { fence, chatFiles: [...files.keys()] });
  const next = new Map(files);
  for (const [p, text] of result.outcome.changes)
    if (text === null) next.delete(p);
    else next.set(p, text);
  return { next, failed: result.outcome.failed.length + result.parse.failures.length };
}

describe("replay oracle", () => {
  it("hunks carry enough context to be unique", () => {
    const text = "a\nb\nx\nb\nc\nx\nb\n";
    const hunks = hunksOf(text, text.replace(/x\nb\n$/, "x\nB\n"));
    expect(hunks).toHaveLength(1);
    expect(text.split(hunks[0]!.before.join("\n")).length - 1).toBe(1);
  });

  it.each(EDIT_FORMAT_NAMES)("a clean %s answer gives the commit's files exactly", (format) => {
    const changes: FileChange[] = [
      { path: "shapes.py", now: before, wanted: after },
      { path: "NEWS.md", now: null, wanted: "# News\n\n- circles\n" },
    ];
    const { next, failed } = apply(format, renderAnswer(format, FENCE, changes), new Map([["shapes.py", before]]));
    expect(failed).toBe(0);
    expect(next.get("shapes.py")).toBe(after);
    expect(next.get("NEWS.md")).toBe("# News\n\n- circles\n");
  });

  it("a missing hunk is one of code, never of documentation no test would miss", () => {
    const changes: FileChange[] = [
      { path: "shapes.py", now: before, wanted: before.replace("3.14 * shape.r * shape.r", "math.pi * shape.r ** 2") },
      { path: "README.md", now: "# Shapes\n", wanted: "# Shapes\n\nCircles use math.pi.\n" },
    ];
    expect(noiseFor("udiff", changes, 2)).toBe("missing");
    const answer = renderNoisyAnswer("udiff", FENCE, changes, "missing");
    expect(answer).toContain("+++ README.md");
    expect(answer).not.toContain("+++ shapes.py");
  });

  it("renders with the fence the request chose", () => {
    const fence: Fence = ["````", "````"];
    const withFence = "Docs:\n```sh\nls\n```\n";
    const req = request({ "README.md": withFence }, fence);
    expect(fenceOf(req)).toEqual(fence);
    expect(shownFile(req, "README.md", fence)).toBe(withFence);
    const answer = renderAnswer("diff", fence, [{ path: "README.md", now: withFence, wanted: `${withFence}More.\n` }]);
    expect(answer).toContain("````\n<<<<<<< SEARCH");
  });

  // Every kind of mistake each format makes, each followed by the oracle's next answers until it says it is done.
  const kinds = EDIT_FORMAT_NAMES.flatMap((format) => [0, 1, 2, 3].map((seed) => [format, seed] as const));
  it.each(kinds)("a noisy %s answer (seed %i) is fixed by the next rounds", (format, seed) => {
    const wanted = new Map([["shapes.py", after]]);
    const noise = noiseFor(format, [{ path: "shapes.py", now: before, wanted: after }], seed);
    expect(noise).not.toBeNull();
    const run = oracleRun(format, wanted, noise);
    let files = new Map([["shapes.py", before]]);
    const answers: string[] = [];
    for (const reply of run.replies) {
      const answer = reply(request(Object.fromEntries(files))) as string;
      answers.push(answer);
      if (answer === NOTHING_LEFT) break;
      files = apply(format, answer, files).next;
    }
    expect(files.get("shapes.py")).toBe(after);
    expect(answers.at(-1)).toBe(NOTHING_LEFT);
  });

  it("the noisy answers of a format spread over its kinds of mistake", () => {
    const changes = [{ path: "shapes.py", now: before, wanted: after }];
    const kinds = (format: EditFormatName) => new Set([0, 1, 2, 3].map((seed) => noiseFor(format, changes, seed)));
    expect(kinds("diff")).toEqual(new Set(["elided", "indent", "stale", "missing"]));
    expect(kinds("udiff")).toEqual(new Set(["indent", "stale", "missing"]));
    expect(kinds("whole")).toEqual(new Set(["elided", "missing"]));
    // A stale SEARCH is refused by the engine; the round after it (the oracle reads the file again) fixes it.
    const stale = renderNoisyAnswer("diff", FENCE, changes, "stale");
    expect(apply("diff", stale, new Map([["shapes.py", before]])).failed).toBeGreaterThan(0);
  });
});

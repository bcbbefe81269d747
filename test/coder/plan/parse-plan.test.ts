import { editorMessage, parsePlan, stepsDone } from "../../../src/coder/plan/parse-plan.js";

describe("parsePlan", () => {
  it.each([
    {
      name: "numbered steps with their files and continuation lines",
      text: "Files: `src/a.ts`, `src/b.ts`\n\n1. In `src/a.ts`, add `x`.\n   Also rename `y`.\n2. In `src/b.ts`, call it.\n3. Run the tests.\n\nNotes: keep `src/c.ts` as it is.",
      steps: [
        { text: "In `src/a.ts`, add `x`.\nAlso rename `y`.", files: ["src/a.ts"] },
        { text: "In `src/b.ts`, call it.", files: ["src/b.ts"] },
        { text: "Run the tests.", files: [] },
      ],
      files: ["src/a.ts", "src/b.ts", "src/c.ts"],
    },
    {
      name: "bullets when there is no numbered list",
      text: "- edit `a.py`\n- edit `lib/b.py`",
      steps: [
        { text: "edit `a.py`", files: ["a.py"] },
        { text: "edit `lib/b.py`", files: ["lib/b.py"] },
      ],
      files: ["a.py", "lib/b.py"],
    },
    {
      name: "one step when there is no list",
      text: "Change `a.go` so it returns early.",
      steps: [{ text: "Change `a.go` so it returns early.", files: ["a.go"] }],
      files: ["a.go"],
    },
    {
      name: "numbers inside a code block are not steps",
      text: "1. edit `a.py`:\n```\n2. not a step\n```\n3. done",
      steps: [
        { text: "edit `a.py`:\n```\n2. not a step\n```", files: ["a.py"] },
        { text: "done", files: [] },
      ],
      files: ["a.py"],
    },
    {
      name: "absolute and parent paths and version numbers are not files",
      text: "1. see `/etc/passwd`, `../x.ts`, `1.2.3`",
      steps: [{ text: "see `/etc/passwd`, `../x.ts`, `1.2.3`", files: [] }],
      files: [],
    },
  ])("$name", ({ text, steps, files }) => {
    const plan = parsePlan(text);
    expect(plan.steps).toEqual(steps);
    expect(plan.files).toEqual(files);
  });
});

describe("stepsDone", () => {
  const plan = parsePlan("1. edit `a.ts`\n2. edit `a.ts` and `b.ts`\n3. run tests");
  it.each([
    { edited: [], all: false, done: [] },
    { edited: ["a.ts"], all: false, done: [0] },
    { edited: ["a.ts", "b.ts"], all: false, done: [0, 1] },
    // A step naming no file is done only when the whole run succeeded.
    { edited: ["a.ts"], all: true, done: [0, 1, 2] },
  ])("edited $edited (success: $all) → $done", ({ edited, all, done }) => {
    expect(stepsDone(plan, new Set(edited), all)).toEqual(done);
  });
});

describe("editorMessage", () => {
  it("is the plan, with the approver's corrections after it when there are some", () => {
    expect(editorMessage(" the plan \n")).toBe("the plan");
    expect(editorMessage("the plan", "  ")).toBe("the plan");
    expect(editorMessage("the plan", "use b")).toMatch(/^the plan\n\nCorrections from the maintainer[^\n]*\nuse b$/);
  });
});

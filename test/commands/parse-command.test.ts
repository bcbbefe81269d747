import { parseCommand } from "../../src/commands/parse-command.js";

describe("parseCommand", () => {
  it.each([
    [
      "/aider add retry logic to the fetch client",
      { verb: "run", text: "add retry logic to the fetch client", flags: { files: [] } },
    ],
    ["/Aider fix it", { verb: "run", text: "fix it", flags: { files: [] } }],
    [
      "Thanks!\n\n/aider add tests\nfor the parser, please",
      { verb: "run", text: "add tests\nfor the parser, please", flags: { files: [] } },
    ],
    [
      '/aider --file src/a.ts --file "docs/my file.md" --edit-format whole rewrite',
      { verb: "run", text: "rewrite", flags: { files: ["src/a.ts", "docs/my file.md"], editFormat: "whole" } },
    ],
    [
      "/aider --model gpt-4o remove the --verbose flag",
      { verb: "run", text: "remove the --verbose flag", flags: { files: [], model: "gpt-4o" } },
    ],
    ["/aider ask why does this fail?", { verb: "ask", text: "why does this fail?", flags: { files: [] } }],
    ["/aider undo", { verb: "undo" }],
    ["/aider retry --edit-format udiff", { verb: "retry", flags: { files: [], editFormat: "udiff" } }],
    ["/aider cancel", { verb: "cancel" }],
    ["/aider help", { verb: "help" }],
    ["/aider usage", { verb: "usage" }],
    ["/aider", { verb: "help" }],
    ["/aider first\n/aider second", { verb: "run", text: "first\n/aider second", flags: { files: [] } }],
    ["/AIDER ASK Why?", { verb: "ask", text: "Why?", flags: { files: [] } }],
    ["/aider --file 'src/my file.ts' fix", { verb: "run", text: "fix", flags: { files: ["src/my file.ts"] } }],
    [
      "/aider --file=src/a.ts --edit-format=diff-fenced fix",
      { verb: "run", text: "fix", flags: { files: ["src/a.ts"], editFormat: "diff-fenced" } },
    ],
    [
      "/aider ask --file src/a.ts what does it do?",
      { verb: "ask", text: "what does it do?", flags: { files: ["src/a.ts"] } },
    ],
    [
      "/aider retry --model gpt-4o-mini --file a.ts",
      { verb: "retry", flags: { files: ["a.ts"], model: "gpt-4o-mini" } },
    ],
    [
      "  /aider fix with up to three spaces",
      { verb: "run", text: "fix with up to three spaces", flags: { files: [] } },
    ],
    ["/aider\nmulti-line\ninstruction", { verb: "run", text: "multi-line\ninstruction", flags: { files: [] } }],
    ["> /aider quoted\n\n/aider real one", { verb: "run", text: "real one", flags: { files: [] } }],
    [
      "```\n/aider in code\n```\n/aider after the fence",
      { verb: "run", text: "after the fence", flags: { files: [] } },
    ],
    ["/aider\tfix tabs", { verb: "run", text: "fix tabs", flags: { files: [] } }],
    ["/aider undo please", { verb: "undo" }],
    // Plans.
    [
      "/aider plan --file a.ts split the parser",
      { verb: "plan", text: "split the parser", flags: { files: ["a.ts"] } },
    ],
    ["/aider plan drop", { verb: "plan-drop" }],
    [
      "/aider plan",
      { verb: "invalid", message: "`/aider plan` needs an instruction: `/aider plan <what to change>`." },
    ],
    ["/aider approve", { verb: "approve", text: "", flags: { files: [] } }],
    ["/aider approve but keep the old name", { verb: "approve", text: "but keep the old name", flags: { files: [] } }],
  ])("%j", (body, expected) => {
    expect(parseCommand(body)).toEqual(expected);
  });

  it.each([
    ["plain comment", "LGTM, thanks"],
    ["quoted reply", "> /aider add retry logic\n\nI agree with this"],
    ["fenced code", "Example:\n```\n/aider do it\n```\n"],
    ["tilde fence", "~~~\n/aider do it\n~~~"],
    ["indented code", "Example:\n\n    /aider do it\n"],
    ["mid-line", "you could write /aider fix this"],
    ["other word", "/aiderx fix"],
    ["nested quote", ">> /aider deep"],
    ["quote with spaces", "  > /aider also quoted"],
    ["four-space indent after a blank line", "text\n\n    /aider code"],
    ["tab-indented code", "\t/aider code"],
    ["longer fence with a shorter inner fence", "````\n```\n/aider no\n```\n````"],
    ["unterminated fence", "```\n/aider no"],
    ["path-like", "/aider/docs is a folder"],
  ])("ignores a %s", (_name, body) => {
    expect(parseCommand(body)).toBeNull();
  });

  it.each([
    ["/aider --frobnicate x", /Unknown option `--frobnicate`.*--file, --edit-format, --model/],
    ["/aider --edit-format nope fix", /Unknown edit format `nope`/],
    ["/aider --file", /needs a value/],
    ["/aider ask", /needs a question/],
    ["/aider --file= fix", /`--file` needs a value/],
    ["/aider --model --file a.ts fix", /`--model` needs a value/],
    ["/aider --endpoint http://evil fix", /Unknown option `--endpoint`/],
  ])("usage error for %j", (body, message) => {
    const c = parseCommand(body);
    expect(c?.verb).toBe("invalid");
    expect(c && c.verb === "invalid" ? c.message : "").toMatch(message);
  });

  it("reads `checks` alone as the checks command, and `checks …` as an instruction", () => {
    expect(parseCommand("/aider checks", "aider")).toEqual({ verb: "checks" });
    expect(parseCommand("/aider checks the parser for nulls", "aider")).toMatchObject({
      verb: "run",
      text: "checks the parser for nulls",
    });
    expect(parseCommand("/aider checks\nand then fix them", "aider")).toMatchObject({ verb: "run" });
  });

  it("uses the configured command word", () => {
    expect(parseCommand("/bot fix", "bot")).toMatchObject({ verb: "run", text: "fix" });
    expect(parseCommand("/aider fix", "bot")).toBeNull();
  });
});

describe("helpText", () => {
  it("lists every sub-command and flag with the configured word", async () => {
    const { helpText } = await import("../../src/commands/help-text.js");
    const text = helpText("bot");
    for (const s of [
      "/bot ask",
      "/bot undo",
      "/bot retry",
      "/bot cancel",
      "/bot help",
      "--file PATH",
      "--edit-format",
      "--model NAME",
    ])
      expect(text).toContain(s);
    expect(text).not.toMatch(/\/aider[ `]/);
  });
});

describe("parseCommand with the pull-request verbs (contextVerbs)", () => {
  const parse = (body: string) => parseCommand(body, "aider", { contextVerbs: true });
  it.each([
    ["/aider address-reviews", { verb: "address-reviews", text: "", threads: [], flags: { files: [] } }],
    [
      "/aider address-reviews keep the API stable",
      { verb: "address-reviews", text: "keep the API stable", threads: [], flags: { files: [] } },
    ],
    [
      "/aider address-reviews --thread PRRT_kwDOA1 --thread=PRRT_kwDOB2 only these",
      { verb: "address-reviews", text: "only these", threads: ["PRRT_kwDOA1", "PRRT_kwDOB2"], flags: { files: [] } },
    ],
    [
      "/aider Address-Reviews --model m --thread 123",
      { verb: "address-reviews", text: "", threads: ["123"], flags: { files: [], model: "m" } },
    ],
    ["/aider fix-ci", { verb: "fix-ci", text: "", flags: { files: [] } }],
    [
      "/aider fix-ci --file src/a.ts the lint only\nnot the tests",
      { verb: "fix-ci", text: "the lint only\nnot the tests", flags: { files: ["src/a.ts"] } },
    ],
    ["/aider please address-reviews", { verb: "run", text: "please address-reviews", flags: { files: [] } }],
  ])("%j", (body, expected) => {
    expect(parse(body)).toEqual(expected);
  });

  it.each([
    ["/aider fix-ci --thread PRRT_1", /Unknown option `--thread`/],
    ["/aider address-reviews --thread", /`--thread` needs a value/],
    ["/aider address-reviews --thread 'a b'", /is not a review thread id/],
    ["/aider address-reviews --nope", /Valid options: --file, --edit-format, --model, --thread/],
  ])("usage error for %j", (body, message) => {
    const c = parse(body);
    expect(c?.verb).toBe("invalid");
    expect(c && c.verb === "invalid" ? c.message : "").toMatch(message);
  });

  it("without the option the words stay a plain instruction, as before", () => {
    expect(parseCommand("/aider fix-ci now")).toEqual({ verb: "run", text: "fix-ci now", flags: { files: [] } });
    expect(parseCommand("/aider address-reviews --thread X")).toEqual({
      verb: "run",
      text: "address-reviews --thread X",
      flags: { files: [] },
    });
  });

  it("help lists the new commands only when they are enabled", async () => {
    const { helpText } = await import("../../src/commands/help-text.js");
    expect(helpText("bot", { contextVerbs: true })).toContain("`/bot address-reviews [--thread ID]... [instruction]`");
    expect(helpText("bot", { contextVerbs: true })).toContain("`/bot fix-ci [instruction]`");
    expect(helpText("bot")).not.toContain("fix-ci");
  });
});

import { parseCommand } from "../../src/commands/parse-command.js";

describe("parseCommand", () => {
  it.each([
    ["/aider add retry logic to the fetch client", { verb: "run", text: "add retry logic to the fetch client", flags: { files: [] } }],
    ["/Aider fix it", { verb: "run", text: "fix it", flags: { files: [] } }],
    ["Thanks!\n\n/aider add tests\nfor the parser, please", { verb: "run", text: "add tests\nfor the parser, please", flags: { files: [] } }],
    ["/aider --file src/a.ts --file \"docs/my file.md\" --edit-format whole rewrite", { verb: "run", text: "rewrite", flags: { files: ["src/a.ts", "docs/my file.md"], editFormat: "whole" } }],
    ["/aider --model gpt-4o remove the --verbose flag", { verb: "run", text: "remove the --verbose flag", flags: { files: [], model: "gpt-4o" } }],
    ["/aider ask why does this fail?", { verb: "ask", text: "why does this fail?", flags: { files: [] } }],
    ["/aider undo", { verb: "undo" }],
    ["/aider retry --edit-format udiff", { verb: "retry", flags: { files: [], editFormat: "udiff" } }],
    ["/aider cancel", { verb: "cancel" }],
    ["/aider help", { verb: "help" }],
    ["/aider", { verb: "help" }],
    ["/aider first\n/aider second", { verb: "run", text: "first\n/aider second", flags: { files: [] } }],
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
  ])("ignores a %s", (_name, body) => {
    expect(parseCommand(body)).toBeNull();
  });

  it.each([
    ["/aider --frobnicate x", /Unknown option `--frobnicate`.*--file, --edit-format, --model/],
    ["/aider --edit-format nope fix", /Unknown edit format `nope`/],
    ["/aider --file", /needs a value/],
    ["/aider ask", /needs a question/],
  ])("usage error for %j", (body, message) => {
    const c = parseCommand(body);
    expect(c?.verb).toBe("invalid");
    expect(c && c.verb === "invalid" ? c.message : "").toMatch(message);
  });

  it("uses the configured command word", () => {
    expect(parseCommand("/bot fix", "bot")).toMatchObject({ verb: "run", text: "fix" });
    expect(parseCommand("/aider fix", "bot")).toBeNull();
  });
});

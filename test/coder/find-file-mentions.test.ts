import { describe, expect, it } from "@jest/globals";
import { findFileMentions } from "../../src/coder/find-file-mentions.js";

const repoFiles = [
  "README.md",
  "run",
  "src/a/index.ts",
  "src/b/index.ts",
  "src/http-client.ts",
  "src/util.ts",
  "lib/util.ts.bak",
];

describe("findFileMentions", () => {
  const find = (text: string, more: { chatFiles?: string[]; readFiles?: string[]; ignored?: string[] } = {}) =>
    findFileMentions(text, {
      repoFiles,
      chatFiles: more.chatFiles ?? [],
      readFiles: more.readFiles ?? [],
      ignored: new Set(more.ignored ?? []),
    });

  it("finds full relative paths, stripping punctuation, quotes and ./", () => {
    expect(find("Please show me `src/util.ts`, and ./src/a/index.ts.")).toEqual(["src/a/index.ts", "src/util.ts"]);
    expect(find("**src/http-client.ts**:")).toEqual(["src/http-client.ts"]);
    expect(find("see src\\util.ts")).toEqual(["src/util.ts"]);
  });

  it("finds unique path-like basenames only", () => {
    expect(find("edit http-client.ts")).toEqual(["src/http-client.ts"]);
    expect(find("index.ts needs work")).toEqual([]); // two files share it
    expect(find("we run the tests")).toEqual([]); // a plain word in prose
    expect(find("edit `run` please")).toEqual(["run"]); // ...but a plain-named file in backticks counts
    expect(find("I need:\nrun\n")).toEqual(["run"]); // ...and so does one alone on its line
  });

  it("skips files in the chat, read-only files and ignored files", () => {
    expect(find("src/util.ts and README.md", { chatFiles: ["src/util.ts"], readFiles: ["README.md"] })).toEqual([]);
    expect(find("src/util.ts", { ignored: ["src/util.ts"] })).toEqual([]);
    // A basename shared with an in-chat file is ambiguous, so it does not count as a mention.
    expect(find("util.ts", { chatFiles: ["lib/other/util.ts"] })).toEqual([]);
  });
});

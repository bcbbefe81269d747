import { findMentions } from "../../src/repomap/mentioned-idents.js";

const files = ["src/config.ts", "src/parser/index.ts", "lib/index.ts", "src/run_job.py", "docs/guide.md", "Makefile"];

describe("findMentions", () => {
  test("paths, unambiguous file-like basenames and long stems are file mentions", () => {
    const m = findMentions(
      "Please fix `src/parser/index.ts`, run_job.py and the Config loader. Also see guide.md!",
      files,
    );
    expect(m.mentionedFiles).toEqual(["docs/guide.md", "src/config.ts", "src/parser/index.ts", "src/run_job.py"]);
  });

  test("ambiguous or plain basenames are not mentions; chat files are not reported", () => {
    expect(findMentions("look at index.ts and the make file", files).mentionedFiles).toEqual([]);
    expect(findMentions("look at the makefile", files).mentionedFiles).toEqual(["Makefile"]);
    expect(findMentions("edit src/config.ts", files, ["src/config.ts"]).mentionedFiles).toEqual([]);
    expect(findMentions("rename guide.md", files, ["other/guide.md"]).mentionedFiles).toEqual([]);
  });

  test("identifiers of four or more characters, as written", () => {
    const m = findMentions("call parseConfig(x) then fix run_job; ok?", files);
    expect(m.mentionedIdents).toEqual(expect.arrayContaining(["parseConfig", "call", "then", "run_job"]));
    expect(m.mentionedIdents).not.toContain("x");
    expect(m.mentionedIdents).not.toContain("fix");
  });
});

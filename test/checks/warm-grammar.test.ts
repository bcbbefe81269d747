import { loadedLanguage } from "../../src/checks/ready-languages.js";
import { syntaxCheck, warmGrammarFor } from "../../src/checks/syntax-check.js";
import { languageForGitHubName } from "../../src/treesitter/languages.js";

// Its own file: jest gives each file fresh modules, so no grammar is loaded before these tests.
describe("warmGrammarFor", () => {
  it("loads the grammar of the repository's language as GitHub names it, ready for the first syntax check", async () => {
    expect(loadedLanguage("go")).toBeNull();
    await warmGrammarFor("Go");
    expect(loadedLanguage("go")).not.toBeNull();
    const report = await syntaxCheck("main.go", "package main\n\nfunc main() {\n");
    expect(report?.ok).toBe(false);
  });

  it("does nothing for a language we do not parse, or none", async () => {
    for (const name of ["Haskell", "constructor", "", undefined, null])
      await expect(warmGrammarFor(name)).resolves.toBeUndefined();
    expect(loadedLanguage("python")).toBeNull();
  });
});

describe("languageForGitHubName", () => {
  it.each([
    ["TypeScript", "typescript"],
    ["JavaScript", "javascript"],
    ["Python", "python"],
    ["C++", "cpp"],
    ["C#", "c_sharp"],
    ["PHP", "php"],
    ["Haskell", null],
    ["toString", null],
    [null, null],
  ])("%p is %p", (name, id) => {
    expect(languageForGitHubName(name)).toBe(id);
  });
});

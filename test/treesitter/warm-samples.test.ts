import { syntaxCheck } from "../../src/checks/syntax-check.js";
import { createTagExtractor } from "../../src/repomap/extract-tags.js";
import type { LanguageId } from "../../src/treesitter/languages.js";
import { warmSample } from "../../src/treesitter/warm-samples.js";

// A file name per language, so the check and the extractor pick the grammar the sample is for.
const FILES: Record<LanguageId, string> = {
  typescript: "a.ts",
  tsx: "a.tsx",
  javascript: "a.js",
  python: "a.py",
  go: "a.go",
  rust: "a.rs",
  java: "A.java",
  c: "a.c",
  cpp: "a.cpp",
  ruby: "a.rb",
  c_sharp: "A.cs",
  php: "a.php",
};

describe("the warm-up samples", () => {
  const extractor = createTagExtractor();
  afterAll(() => extractor.dispose());

  // A sample the grammar cannot parse would warm its error recovery, not the code real files reach.
  it.each(Object.entries(FILES))(
    "%s: parses without a syntax error and defines names the map would show",
    async (id, file) => {
      const sample = warmSample(id as LanguageId);
      expect(sample.split("\n").length).toBeGreaterThan(15);
      expect(await syntaxCheck(file, sample)).toMatchObject({ ok: true });
      const tags = (await extractor.extract(file, sample))?.tags ?? [];
      expect(tags.filter((t) => t.kind === "def").length).toBeGreaterThanOrEqual(3);
      expect(tags.some((t) => t.kind === "ref")).toBe(true);
    },
  );
});

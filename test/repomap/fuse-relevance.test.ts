import { fuseRelevance, SIGNAL_WEIGHTS } from "../../src/repomap/fuse-relevance.js";

const files = ["src/retry.ts", "test/retry.test.ts", "src/http.ts", "src/theme.ts", "src/log.ts"];

describe("fuseRelevance", () => {
  test("lexical scores carry over, scaled to a best of 1, and a source's test gets half of it", () => {
    const r = fuseRelevance({ files, lexical: new Map([["src/retry.ts", 0.8]]) });
    expect(r.get("src/retry.ts")).toBe(1);
    expect(r.get("test/retry.test.ts")).toBeCloseTo(SIGNAL_WEIGHTS.testPair);
    expect(r.has("src/http.ts")).toBe(false);
  });

  test("hint and mentioned files count like the best lexical match; unknown paths are ignored", () => {
    const r = fuseRelevance({
      files,
      lexical: new Map([["src/retry.ts", 1]]),
      hintFiles: ["src/theme.ts", "nope.ts"],
      mentionedFiles: ["src/log.ts"],
    });
    expect(r.get("src/theme.ts")).toBe(r.get("src/retry.ts"));
    expect(r.get("src/log.ts")).toBe(r.get("src/retry.ts"));
    expect(r.has("nope.ts")).toBe(false);
  });

  test("history: files changed with a chat file gain, the chat file itself is never listed", () => {
    const history = [
      ["src/http.ts", "src/log.ts"],
      ["src/http.ts", "src/log.ts"],
      ["src/theme.ts", "src/retry.ts"],
    ];
    const r = fuseRelevance({ files, lexical: new Map(), chatFiles: ["src/http.ts"], history });
    expect(r.has("src/http.ts")).toBe(false);
    expect(r.get("src/log.ts")).toBe(1);
    expect(r.has("src/theme.ts")).toBe(false);
  });

  test("a chat file's test is relevant even with no other signal", () => {
    const r = fuseRelevance({ files, lexical: new Map(), chatFiles: ["src/retry.ts"] });
    expect([...r.keys()]).toEqual(["test/retry.test.ts"]);
  });

  test("the best lexical matches seed co-change", () => {
    const r = fuseRelevance({
      files,
      lexical: new Map([["src/theme.ts", 1]]),
      history: [["src/theme.ts", "src/log.ts"]],
    });
    expect(r.get("src/log.ts")).toBeCloseTo(SIGNAL_WEIGHTS.coChange);
  });

  test("nothing to go on: empty", () => {
    expect(fuseRelevance({ files, lexical: new Map() }).size).toBe(0);
  });
});

import { lexicalScores, namesWords, type LexicalDoc } from "../../src/repomap/lexical-scores.js";

const doc = (relPath: string, defs: string[] = [], refs: string[] = []): LexicalDoc => ({ relPath, defs: namesWords(defs), refs: namesWords(refs) });

describe("lexicalScores", () => {
  const docs = [
    doc("src/jobs/retry-policy.ts", ["retryDelay", "RetryPolicy"]),
    doc("src/http/client.ts", ["createClient"], ["retryDelay"]),
    doc("src/ui/theme.ts", ["darkMode", "applyTheme"]),
    doc("src/util/strings.ts", ["padLeft"]),
  ];

  test("a concept word finds the file that defines it, by path and name, above a file that only uses it", () => {
    const scores = lexicalScores(docs, "Retries should back off longer");
    expect([...scores.keys()]).toEqual(["src/jobs/retry-policy.ts", "src/http/client.ts"]);
    expect(scores.get("src/jobs/retry-policy.ts")).toBe(1);
    expect(scores.get("src/http/client.ts")!).toBeLessThan(1);
    expect(scores.has("src/ui/theme.ts")).toBe(false);
  });

  test("camelCase names match the request's separate words", () => {
    const scores = lexicalScores(docs, "dark mode flickers on load");
    expect(scores.get("src/ui/theme.ts")).toBe(1);
    expect(scores.size).toBe(1);
  });

  test("a request with no useful word, or no documents, scores nothing", () => {
    expect(lexicalScores(docs, "fix the bug").size).toBe(0);
    expect(lexicalScores([], "retry").size).toBe(0);
  });

  test("deterministic: the same input gives the same scores", () => {
    const a = lexicalScores(docs, "retry theme client");
    const b = lexicalScores(docs, "retry theme client");
    expect([...a]).toEqual([...b]);
  });

  test("a word rare in the repository weighs more than a common one", () => {
    const many = [...Array.from({ length: 20 }, (_, i) => doc(`src/handler${i}.ts`, [`handleEvent${i}`])), doc("src/outbox.ts", ["drainOutbox"], ["handleEvent1"])];
    const scores = lexicalScores(many, "handle outbox event");
    expect([...scores.keys()].sort((a, b) => scores.get(b)! - scores.get(a)!)[0]).toBe("src/outbox.ts");
  });
});

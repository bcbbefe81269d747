import MiniSearch from "minisearch";
import {
  FIELD_BOOST,
  fieldPostings,
  lexicalScores,
  namesWords,
  prepareLexical,
  scoreLexically,
  type LexicalDoc,
} from "../../src/repomap/lexical-scores.js";
import { splitWords } from "../../src/repomap/split-words.js";

const doc = (relPath: string, defs: string[] = [], refs: string[] = []): LexicalDoc => ({
  relPath,
  defs: namesWords(defs),
  refs: namesWords(refs),
});

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
    const many = [
      ...Array.from({ length: 20 }, (_, i) => doc(`src/handler${i}.ts`, [`handleEvent${i}`])),
      doc("src/outbox.ts", ["drainOutbox"], ["handleEvent1"]),
    ];
    const scores = lexicalScores(many, "handle outbox event");
    expect([...scores.keys()].sort((a, b) => scores.get(b)! - scores.get(a)!)[0]).toBe("src/outbox.ts");
  });
});

describe("scoreLexically", () => {
  // The reference: the MiniSearch index this ranking was first built on (BM25+, same fields and boosts).
  const reference = (docs: readonly LexicalDoc[], text: string): Map<string, number> => {
    const query = [...new Set(splitWords(text))].slice(0, 64);
    const wanted = new Set(query);
    const index = new MiniSearch<{ id: number; path: string; defs: string; refs: string }>({
      fields: ["path", "defs", "refs"],
      tokenize: (s) => (s ? s.split(" ") : []),
      processTerm: (t) => (wanted.has(t) ? t : null),
      searchOptions: { boost: { ...FIELD_BOOST }, combineWith: "OR", prefix: false, fuzzy: false },
    });
    index.addAll(
      docs
        .map((d, id) => ({ id, path: splitWords(d.relPath).join(" "), defs: d.defs, refs: d.refs }))
        .filter((d) => d.path || d.defs || d.refs),
    );
    const hits = query.length ? index.search(query.join(" ")) : [];
    const best = Math.max(0, ...hits.map((h) => h.score));
    return new Map(hits.sort((a, b) => a.id - b.id).map((h) => [docs[h.id]!.relPath, h.score / best]));
  };

  test("gives exactly MiniSearch's BM25+ scores over cached postings", () => {
    const words = [
      "retry",
      "queue",
      "theme",
      "dark",
      "mode",
      "client",
      "parse",
      "config",
      "token",
      "cache",
      "event",
      "handle",
    ];
    // A deterministic pseudo-random repository: paths, defined and used names drawn from a small vocabulary.
    let seed = 7;
    const next = (m: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % m;
    const pick = (k: number): string[] =>
      Array.from(
        { length: k },
        () => `${words[next(words.length)]}${words[next(words.length)]!.replace(/^./, (c) => c.toUpperCase())}`,
      );
    const docs = Array.from({ length: 80 }, (_, i) =>
      doc(`src/${words[next(words.length)]}/${words[next(words.length)]}-${i}.ts`, pick(next(6)), pick(next(8))),
    );
    docs.push(doc("README"), doc("src/retry/retry-retry.ts"));
    for (const text of [
      "retry the queue",
      "Dark mode theme client parse",
      "cache token events handled",
      "nothing matches zzz",
      "queue",
    ]) {
      const ours = lexicalScores(docs, text);
      const theirs = reference(docs, text);
      expect([...ours.keys()]).toEqual([...theirs.keys()]);
      for (const [f, v] of theirs) expect(ours.get(f)).toBe(v);
    }
  });

  test("only the files given are documents: names of files outside them change nothing", () => {
    const names = { defs: fieldPostings([["retry"], ["retry", "queue"]]), refs: fieldPostings([[], []]) };
    const scores = scoreLexically(
      prepareLexical(["src/a.ts"], () => 1, names),
      "retry queue",
    );
    expect([...scores]).toEqual([["src/a.ts", 1]]);
    expect(
      scoreLexically(
        prepareLexical(["src/b.ts"], () => -1, names),
        "retry",
      ).size,
    ).toBe(0);
  });
});

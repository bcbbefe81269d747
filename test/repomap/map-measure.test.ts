import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { countTokens, loadTokenizer } from "../../src/llm/count-tokens.js";
import { createTagExtractor } from "../../src/repomap/extract-tags.js";
import { fitMeasured, fitToBudget } from "../../src/repomap/fit-to-budget.js";
import { createMapMeasure } from "../../src/repomap/map-measure.js";
import { rankTags } from "../../src/repomap/rank-tags.js";
import { renderMap } from "../../src/repomap/render-map.js";
import type { FileTags } from "../../src/repomap/types.js";

const SAMPLE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/repomap/sample");
const byFile = new Map<string, FileTags>();
let files: string[];

beforeAll(async () => {
  await loadTokenizer();
  files = (await readdir(SAMPLE, { recursive: true, withFileTypes: true }))
    .filter((d) => d.isFile())
    .map((d) => path.relative(SAMPLE, path.join(d.parentPath, d.name)))
    .sort();
  const extractor = createTagExtractor();
  for (const f of files) {
    const ft = await extractor.extract(f, await readFile(path.join(SAMPLE, f), "utf8"));
    if (ft) byFile.set(f, ft);
  }
  extractor.dispose();
});

describe("createMapMeasure", () => {
  test("every prefix: renderMap's text and token count, or null only when that is over the budget", () => {
    const ranked = rankTags({ tags: [...byFile.values()].flatMap((f) => f.tags), files, chatFiles: ["src/app.tsx"] });
    const chat = new Set(["src/app.tsx"]);
    const lookup = { has: (f: string) => byFile.has(f), get: (f: string) => byFile.get(f) as FileTags };
    for (const budget of [50, 400, 100_000]) {
      const measure = createMapMeasure(ranked, lookup, chat, budget, countTokens);
      for (let m = 0; m <= ranked.length; m++) {
        const text = renderMap(ranked.slice(0, m), byFile, chat);
        const measured = measure.prefix(m);
        if (measured) expect(measured).toEqual({ text, tokens: countTokens(text) });
        else expect(countTokens(text)).toBeGreaterThan(budget);
      }
      // Not a prefix (the fill step's lists): rendered whole.
      const gappy = [...ranked.slice(0, 3), ...ranked.slice(5, 9)];
      const text = renderMap(gappy, byFile, chat);
      expect(measure.list(gappy)).toEqual({ text, tokens: countTokens(text) });
    }
  });

  test("fitting with it chooses exactly what fitToBudget chooses", () => {
    const ranked = rankTags({ tags: [...byFile.values()].flatMap((f) => f.tags), files });
    const lookup = { has: (f: string) => byFile.has(f), get: (f: string) => byFile.get(f) as FileTags };
    for (const budget of [64, 128, 300, 700, 1500]) {
      const plain = fitToBudget(ranked, (chosen) => renderMap(chosen, byFile), budget, countTokens);
      const fast = fitMeasured(ranked, budget, createMapMeasure(ranked, lookup, new Set(), budget, countTokens));
      expect(fast).toEqual(plain);
    }
  });
});

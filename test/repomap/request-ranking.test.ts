import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadTokenizer } from "../../src/llm/count-tokens.js";
import { buildRepoMap, type BuildRepoMapOptions } from "../../src/repomap/build-repo-map.js";
import { rankTags } from "../../src/repomap/rank-tags.js";
import type { Tag } from "../../src/repomap/types.js";

/**
 * A repository where PageRank favours a widely used helper: twelve feature files all call `formatValue`, and
 * nobody calls the invoice code, so a small map shows the helper and the features, not the invoice files.
 */
async function makeRepo(): Promise<{ root: string; files: string[] }> {
  const root = await mkdtemp(path.join(os.tmpdir(), "repomap-request-"));
  const files: Record<string, string> = {
    "src/util/format.ts": "export function formatValue(v: number): string {\n  return String(v);\n}\n",
    "src/billing/invoice-total.ts":
      "export function computeInvoiceTotal(lines: number[]): number {\n  return lines.reduce((a, b) => a + b, 0);\n}\n",
    "src/billing/discount.ts":
      "export function applyDiscount(total: number, rate: number): number {\n  return total * (1 - rate);\n}\n",
    "test/billing/invoice-total.test.ts":
      "import { computeInvoiceTotal } from '../../src/billing/invoice-total';\ntest('sum', () => computeInvoiceTotal([1]));\n",
  };
  for (let i = 0; i < 12; i++) {
    files[`src/features/feature${i}.ts`] =
      `import { formatValue } from '../util/format';\nexport function renderFeature${i}(): string {\n  return formatValue(${i});\n}\n`;
  }
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
  return { root, files: Object.keys(files).sort() };
}

let repo: { root: string; files: string[] };
beforeAll(async () => {
  await loadTokenizer();
  repo = await makeRepo();
});
afterAll(async () => {
  await rm(repo.root, { recursive: true, force: true });
});

const build = (extra: Partial<BuildRepoMapOptions> = {}) =>
  buildRepoMap({ root: repo.root, files: repo.files, cacheDir: null, threads: 0, mapTokens: 120, ...extra });

describe("request-aware ranking in buildRepoMap", () => {
  test("a request naming a concept brings its files to the front of a small map; PageRank alone does not", async () => {
    const text = "Invoice totals are wrong when a discount applies";
    const today = await build({ mapTokens: 30 });
    const aware = await build({ mapTokens: 30, request: { text } });
    expect(today.shownFiles).not.toContain("src/billing/invoice-total.ts");
    expect(today.rankedFiles[0]).toBe("src/util/format.ts");
    expect(aware.rankedFiles.slice(0, 2).sort()).toEqual(["src/billing/discount.ts", "src/billing/invoice-total.ts"]);
    expect(aware.shownFiles[0]).toBe(aware.rankedFiles[0]);
    // Its test is paired with it.
    expect(aware.rankedFiles.indexOf("test/billing/invoice-total.test.ts")).toBeLessThan(
      aware.rankedFiles.indexOf("src/util/format.ts"),
    );
    expect(aware.stats.tokens).toBeLessThanOrEqual(30);
  });

  test("the lexical index is cached with the graph: a warm build gives the cold build's map and saves nothing", async () => {
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), "request-cache-"));
    try {
      const request = { text: "Invoice totals are wrong when a discount applies" };
      const cold = await build({ cacheDir, request });
      // Had the cold build stored the graph without its lexical index, the warm one would add it and save again.
      const saved = (await stat(path.join(cacheDir, "tags.bin"))).mtimeMs;
      const warm = await build({ cacheDir, request });
      expect(warm.text).toBe(cold.text);
      expect(warm.rankedFiles).toEqual(cold.rankedFiles);
      expect(warm.stats.parsed).toBe(0);
      expect((await stat(path.join(cacheDir, "tags.bin"))).mtimeMs).toBe(saved);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  test("deterministic: the same request gives the same map", async () => {
    const a = await build({ request: { text: "invoice discount" } });
    const b = await build({ request: { text: "invoice discount" } });
    expect(b.text).toBe(a.text);
    expect(b.rankedFiles).toEqual(a.rankedFiles);
  });

  test("a request that says nothing about the code leaves the map as it was", async () => {
    const today = await build();
    for (const request of [{ text: "" }, { text: "please fix this" }, {}]) {
      const same = await build({ request });
      expect(same.text).toBe(today.text);
      expect(same.rankedFiles).toEqual(today.rankedFiles);
    }
  });

  test("hint files (a pull request's changed files) and co-changed files are ranked first", async () => {
    const hinted = await build({ request: { hintFiles: ["src/billing/discount.ts"] } });
    expect(hinted.rankedFiles[0]).toBe("src/billing/discount.ts");
    const history = [["src/features/feature3.ts", "src/features/feature7.ts"]];
    const cochanged = await build({
      chatFiles: ["src/features/feature3.ts"],
      request: { text: "", history, hintFiles: [] },
    });
    // Without text, hints or mentions the request brings nothing: the history alone does not change the ranking.
    expect(cochanged.rankedFiles).toEqual((await build({ chatFiles: ["src/features/feature3.ts"] })).rankedFiles);
    const withText = await build({
      chatFiles: ["src/features/feature3.ts"],
      request: { text: "render feature", history },
    });
    expect(withText.rankedFiles[0]).toBe("src/features/feature7.ts");
  });
});

describe("rankTags with relevance", () => {
  const tags: Tag[] = [
    { relPath: "a.ts", name: "hub", kind: "def", line: 0 },
    { relPath: "b.ts", name: "hub", kind: "ref", line: 1 },
    { relPath: "c.ts", name: "hub", kind: "ref", line: 1 },
    { relPath: "d.ts", name: "leaf", kind: "def", line: 3 },
    { relPath: "d.ts", name: "leafToo", kind: "def", line: 5 },
  ];
  const files = ["a.ts", "b.ts", "c.ts", "d.ts", "notes.md"];

  test("empty relevance is Aider's ranking", () => {
    expect(rankTags({ tags, files, relevance: new Map() })).toEqual(rankTags({ tags, files }));
  });

  test("relevant files come first with their best definition; a relevant file without tags is listed by name", () => {
    const ranked = rankTags({
      tags,
      files,
      relevance: new Map([
        ["d.ts", 1],
        ["notes.md", 0.5],
      ]),
    });
    expect(ranked[0]!.relPath).toBe("d.ts");
    expect(ranked[1]).toEqual({ relPath: "notes.md" });
    // Every definition is listed once, and every file.
    expect(ranked.filter((e) => e.relPath === "d.ts")).toHaveLength(2);
    expect(new Set(ranked.map((e) => e.relPath))).toEqual(new Set(files));
  });
});

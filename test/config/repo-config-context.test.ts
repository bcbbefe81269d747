import { parseRepoConfig } from "../../src/config/repo-config.js";

describe("parseRepoConfig: context, reviews and ci keys", () => {
  it("defaults: a 12k context budget split per source, no thread resolving, no autofix, two rounds", () => {
    const r = parseRepoConfig({});
    expect(r.ok && r.config.context).toEqual({
      max_tokens: 12000,
      prior_runs: 1500,
      review_threads: 3000,
      checks: 2000,
      conversation: 2000,
      closing_issues: 1000,
      instructions: 4000,
      diff: 5000,
    });
    expect(r.ok && r.config.reviews).toEqual({ resolve_threads: false });
    expect(r.ok && r.config.ci).toEqual({ autofix: false, max_rounds: 2 });
  });

  it("a partial context mapping keeps the other defaults; 0 turns a source off", () => {
    const r = parseRepoConfig({
      context: { max_tokens: 4000, diff: 0 },
      reviews: { resolve_threads: true },
      ci: { autofix: true, max_rounds: 1 },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.context).toMatchObject({ max_tokens: 4000, diff: 0, review_threads: 3000 });
    expect(r.config.reviews.resolve_threads).toBe(true);
    expect(r.config.ci).toEqual({ autofix: true, max_rounds: 1 });
  });

  it.each([
    [{ context: { diff: -1 } }, "context.diff"],
    [{ context: { comments: 10 } }, "context"],
    [{ context: { max_tokens: 1.5 } }, "context.max_tokens"],
    [{ reviews: { resolve_threads: "yes" } }, "reviews.resolve_threads"],
    [{ ci: { max_rounds: 11 } }, "ci.max_rounds"],
    [{ ci: { autofix: 1 } }, "ci.autofix"],
  ])("rejects %j at %s", (raw, path) => {
    const r = parseRepoConfig(raw);
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.problems.map((p) => p.path)).toContain(path);
  });
});

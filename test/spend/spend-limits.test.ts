import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseRepoConfig } from "../../src/config/repo-config.js";
import { operatorLimitsFor, readBudgetFile } from "../../src/spend/budget-file.js";
import { createLedgerGuard } from "../../src/spend/ledger-spend-guard.js";
import { createLmdbLedger } from "../../src/spend/lmdb-ledger.js";
import { planBuckets } from "../../src/spend/plan-buckets.js";
import { renderUsage } from "../../src/spend/render-usage.js";
import { resolveLimits } from "../../src/spend/spend-limits.js";

describe("resolveLimits", () => {
  it("takes the lower of the operator's and the repository's limit: a repository can lower a limit, never raise or lift it", () => {
    const limits = resolveLimits(
      { day_usd: 10, month_tokens: 1_000_000, installation_day_usd: 50, timezone: "Europe/Berlin" },
      {
        day_usd: 25,
        month_tokens: 500_000,
        pr_usd: 2,
        installation_day_usd: 1,
      } as never,
    );
    expect(limits.limits).toEqual({
      run: {},
      pr: { usdMicros: 2_000_000 },
      "repo-day": { usdMicros: 10_000_000 },
      "repo-month": { tokens: 500_000 },
      // Installation limits are the operator's alone.
      "installation-day": { usdMicros: 50_000_000 },
      "installation-month": {},
    });
    expect(limits.timeZone).toBe("Europe/Berlin");
    expect(resolveLimits({}, { timezone: "Asia/Tokyo" })).toMatchObject({
      timeZone: "Asia/Tokyo",
      installationTimeZone: "UTC",
    });
  });

  it("the repository's budget keys are validated with their time zone", () => {
    expect(
      parseRepoConfig({
        budget: { day_usd: 5, month_tokens: 100, timezone: "Europe/Berlin" },
        fallback_models: ["gpt-4o-mini"],
      }).ok,
    ).toBe(true);
    expect(parseRepoConfig({ budget: { timezone: "Mars/Olympus" } })).toMatchObject({
      ok: false,
      problems: [{ path: "budget.timezone", message: 'must be an IANA time zone such as "UTC" or "Europe/Berlin"' }],
    });
    expect(parseRepoConfig({ budget: { day_dollars: 5 } })).toMatchObject({
      ok: false,
      problems: [{ path: "budget" }],
    });
  });
});

describe("the operator's budget file", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "budget-file-"));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("reads defaults and per-installation overrides", async () => {
    const file = path.join(dir, "budget.yml");
    await writeFile(
      file,
      'defaults:\n  day_usd: 20\n  installation_month_usd: 500\n  timezone: America/New_York\ninstallations:\n  "42":\n    day_usd: 5\n',
    );
    const parsed = await readBudgetFile(file);
    expect(operatorLimitsFor(parsed, 42)).toEqual({
      day_usd: 5,
      installation_month_usd: 500,
      timezone: "America/New_York",
    });
    expect(operatorLimitsFor(parsed, 7)).toEqual({
      day_usd: 20,
      installation_month_usd: 500,
      timezone: "America/New_York",
    });
  });

  it("refuses a file with a bad key, saying where", async () => {
    const file = path.join(dir, "bad.yml");
    await writeFile(file, "defaults:\n  day_usd: -1\n  daily: 3\n");
    await expect(readBudgetFile(file)).rejects.toThrow(
      /AIDER_BOT_BUDGET_FILE: .*bad\.yml has problems:\n- defaults\.day_usd: .*\n- defaults: .*daily/,
    );
    await expect(readBudgetFile(path.join(dir, "none.yml"))).rejects.toThrow(
      /AIDER_BOT_BUDGET_FILE: cannot read .*none\.yml \(ENOENT\)/,
    );
  });
});

describe("the ledger guard", () => {
  const scope = { installationId: 9, owner: "Octo", repo: "App", number: 3, runId: "job-1" };
  const now = Date.UTC(2026, 10, 28, 12, 0);

  it("an unknown price counts tokens only; the refusal says which limit, what was spent, when it resets, and that cost is unknown", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "guard-"));
    const ledger = createLmdbLedger(path.join(dir, "spend"));
    try {
      const limits = resolveLimits({}, { day_tokens: 10_000, day_usd: 1, timezone: "Europe/Berlin" });
      const refusals: string[] = [];
      const guard = createLedgerGuard({ ledger, scope, limits, now: () => now, onRefused: (l) => refusals.push(l) });
      const first = await guard.reserve({
        model: "local",
        tokens: { prompt: 1_000, completion: 4_000 },
        costUsd: null,
      });
      expect(first.ok).toBe(true);
      await guard.settle((first as { id: string }).id, { tokens: { prompt: 1_000, completion: 6_000 }, costUsd: null });
      const second = await guard.reserve({
        model: "local",
        tokens: { prompt: 1_000, completion: 4_000 },
        costUsd: null,
      });
      expect(second).toEqual({
        ok: false,
        limit: "repo-day",
        message:
          "Spend limit reached: this repository's daily limit is 10,000 tokens; 7,000 tokens spent, and the next model call could use up to 5,000 tokens. The model's price is unknown, so only its tokens are counted. It resets at 2026-11-29 00:00 (Europe/Berlin). No model call was made. To allow more, raise `budget.day_tokens` in `.github/aider.yml` (up to the operator's limit).",
      });
      expect(refusals).toEqual(["repo-day"]);
      const buckets = planBuckets(scope, limits, now).filter((b) => b.scope.startsWith("repo"));
      expect(buckets.map((b) => b.key)).toEqual(["repo/octo/app/day/2026-11-28", "repo/octo/app/month/2026-11"]);
      const table = renderUsage(buckets, await ledger.read(buckets.map((b) => b.key)), now);
      expect(table).toContain(
        "| This repository today | $0.0000 of $1.0000 + 1 call of unknown cost | 7,000 of 10,000 | 2026-11-29 00:00 (Europe/Berlin) |",
      );
    } finally {
      await ledger.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("planBuckets", () => {
  const now = Date.UTC(2026, 10, 28, 12, 0);
  const limits = resolveLimits({}, {});

  it("a run with a thread counts against its pull request; a run on a branch has no pull-request bucket, not #0", () => {
    const scope = { installationId: 9, owner: "Octo", repo: "App", runId: "job-1" };
    const keys = (s: typeof scope & { number?: number }) => planBuckets(s, limits, now).map((b) => b.key);
    expect(keys({ ...scope, number: 3 })).toContain("pr/octo/app#3");
    expect(keys(scope).filter((k) => k.startsWith("pr/"))).toEqual([]);
    expect(keys(scope)).toContain("run/job-1");
  });
});

describe("the ledger guard against a hostile job process", () => {
  it("negative or non-numeric amounts sent over IPC never shrink what is held or spent", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "guard-hostile-"));
    const ledger = createLmdbLedger(path.join(dir, "spend"));
    try {
      const scope = { installationId: 1, owner: "o", repo: "r", number: 1, runId: "j" };
      const limits = resolveLimits({}, { pr_tokens: 100 });
      const guard = createLedgerGuard({ ledger, scope, limits });
      const held = await guard.reserve({ model: "m", tokens: { prompt: 60, completion: 0 }, costUsd: null });
      expect(held.ok).toBe(true);
      const sneaky = await guard.reserve({
        model: "m",
        tokens: { prompt: -1_000, completion: Number.NaN },
        costUsd: -5,
      });
      expect(sneaky.ok).toBe(true);
      await guard.settle((sneaky as { id: string }).id, { tokens: { prompt: -500, completion: -500 }, costUsd: -1 });
      const next = await guard.reserve({ model: "m", tokens: { prompt: 50, completion: 0 }, costUsd: null });
      expect(next).toMatchObject({ ok: false, limit: "pr" });
    } finally {
      await ledger.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { parseRepoConfig } from "../../src/config/repo-config.js";
import { readEnv } from "../../src/config/env.js";

const fixture = (name: string) => parse(readFileSync(new URL(`../fixtures/config/${name}`, import.meta.url), "utf8"));

describe("parseRepoConfig", () => {
  it("gives the documented defaults for a missing file", () => {
    const r = parseRepoConfig(null);
    expect(r.ok && r.config).toMatchObject({
      edit_format: "diff",
      map_tokens: 1024,
      max_reflections: 3,
      timeout: 20,
      require_green_checks: false,
      protected_paths: [".github/workflows/**"],
      trigger: {
        command: "aider",
        label: "aider",
        min_permission: "write",
        ask_permission: "triage",
        allowed_bots: [],
      },
      pull_request: { draft: true, branch_prefix: "aider/" },
    });
    // Absent command keys stay absent (discovery fills them), unlike an empty list, which means "none".
    expect(r.ok && [r.config.setup, r.config.lint, r.config.test]).toEqual([undefined, undefined, undefined]);
    const empty = parseRepoConfig({ setup: [], lint: [], test: [] });
    expect(empty.ok && [empty.config.setup, empty.config.lint, empty.config.test]).toEqual([[], [], []]);
  });

  it("reads a full config, normalising single commands to lists", () => {
    const r = parseRepoConfig(fixture("valid-full.yml"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.setup).toEqual(["npm ci"]);
    expect(r.config.trigger).toMatchObject({ command: "bot", min_permission: "maintain", ask_permission: "triage" });
    expect(r.config.schedules[0]).toMatchObject({ cron: "0 6 * * 1", files: [] });
  });

  it("reads `sandbox.image` (container mode) and refuses other sandbox keys", () => {
    const r = parseRepoConfig({ sandbox: { image: "python:3.12" } });
    expect(r.ok && r.config.sandbox).toEqual({ image: "python:3.12" });
    const none = parseRepoConfig({});
    expect(none.ok && none.config.sandbox).toEqual({});
    const bad = parseRepoConfig({ sandbox: { image: "", build: "Dockerfile" } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems.map((p) => p.path)).toEqual(expect.arrayContaining(["sandbox.image", "sandbox"]));
  });

  it("lists every problem with its key path", () => {
    const r = parseRepoConfig(fixture("invalid.yml"));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const byPath = Object.fromEntries(r.problems.map((p) => [p.path, p.message]));
    // `test` takes a command or a list of them; a mapping is neither.
    expect(byPath.test).toEqual(expect.any(String));
    expect(byPath.map_tokens).toBe("must be a number");
    expect(byPath.edit_format).toMatch(/must be one of `diff`/);
    expect(byPath["trigger.min_permission"]).toMatch(/must be one of/);
    expect(byPath.trigger).toMatch(/unknown key `colour`/);
    expect(byPath["schedules.0.cron"]).toMatch(/valid cron/);
    expect(byPath[""] ?? byPath["(file)"]).toMatch(/unknown key `unknown_key`/);
  });

  it("ignores Probot's _extends key and rejects a non-mapping", () => {
    expect(parseRepoConfig({ _extends: "org/.github", map_tokens: 10 }).ok).toBe(true);
    expect(parseRepoConfig("hello")).toEqual({
      ok: false,
      problems: [{ path: "(file)", message: "must be a mapping of keys to values" }],
    });
  });
});

describe("readEnv", () => {
  it("derives the GitHub Enterprise API URL and validates numbers", () => {
    expect(readEnv({ GHE_HOST: "ghe.example.com" }).githubBaseUrl).toBe("https://ghe.example.com/api/v3");
    expect(readEnv({ GHE_HOST: "127.0.0.1:8080", GHE_PROTOCOL: "http" }).githubBaseUrl).toBe(
      "http://127.0.0.1:8080/api/v3",
    );
    expect(() => readEnv({ AIDER_BOT_CONCURRENCY: "zero" })).toThrow(/AIDER_BOT_CONCURRENCY/);
    expect(readEnv({}).openaiBaseUrl).toBe("https://api.openai.com/v1");
    expect(readEnv({ AIDER_BOT_PRICES: '{"local/llama":{"input":0.1,"output":0.2}}' }).prices).toEqual({
      "local/llama": { input: 0.1, output: 0.2 },
    });
    expect(() => readEnv({ AIDER_BOT_PRICES: '{"m":{"input":"cheap"}}' })).toThrow(/numeric/);
    expect(
      readEnv({ AIDER_BOT_PRICES: '{"c":{"input":3,"output":15,"cacheRead":0.3,"cacheWrite":3.75}}' }).prices,
    ).toEqual({ c: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } });
    expect(() => readEnv({ AIDER_BOT_PRICES: '{"c":{"input":3,"output":15,"cacheRead":-1}}' })).toThrow(/cacheRead/);
  });
});

describe("config fixtures", () => {
  it("an empty file is all defaults; auto_test stays unset so it follows `test`", () => {
    const r = parseRepoConfig(fixture("empty.yml"));
    expect(r.ok && r.config.auto_test).toBeUndefined();
    expect(r.ok && r.config.budget).toEqual({});
  });

  it("a single lint command becomes a list and schedules keep files and branch", () => {
    const r = parseRepoConfig(fixture("lint-list.yml"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.lint).toEqual(["npx eslint ."]);
    expect(r.config.schedules).toEqual([
      {
        cron: "*/30 * * * *",
        message: "keep the changelog tidy",
        files: ["CHANGELOG.md"],
        branch: "develop",
        stack: false,
      },
    ]);
  });

  it("schedules take an IANA time zone and stack; a bad zone is reported", () => {
    const ok = parseRepoConfig({
      schedules: [{ cron: "0 6 * * 1", message: "m", timezone: "Europe/Berlin", stack: true }],
    });
    expect(ok.ok && ok.config.schedules[0]).toMatchObject({ timezone: "Europe/Berlin", stack: true });
    const bad = parseRepoConfig({ schedules: [{ cron: "0 6 * * 1", message: "m", timezone: "Mars/Olympus" }] });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.problems).toEqual([
        { path: "schedules.0.timezone", message: 'must be an IANA time zone, e.g. "Europe/Berlin" or "UTC"' },
      ]);
  });

  it("nested problems are reported with full key paths", () => {
    const r = parseRepoConfig(fixture("invalid-nested.yml"));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const paths = r.problems.map((p) => p.path).sort();
    expect(paths).toEqual(
      expect.arrayContaining([
        "auto_test",
        "budget.max_usd",
        "pull_request.draft",
        "trigger.command",
        "trigger.allowed_bots.0",
        "protected_paths",
        "schedules.0.cron",
      ]),
    );
    expect(paths.some((p) => p.startsWith("lint"))).toBe(true);
    const byPath = Object.fromEntries(r.problems.map((p) => [p.path, p.message]));
    expect(byPath.auto_test).toBe("must be a boolean");
    expect(byPath.protected_paths).toBe("must be a list");
    expect(byPath["trigger.command"]).toMatch(/single word/);
  });
});

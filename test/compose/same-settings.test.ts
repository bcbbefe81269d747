import { withInputDefaults } from "../../src/action/run-action.js";
import { cliSettings, type RunCommandOptions } from "../../src/cli/run-command.js";
import { resolveRunSettings, type ComposedSettings } from "../../src/compose/run-settings.js";
import { readActionEnv } from "../../src/config/action-env.js";
import { readEnv } from "../../src/config/env.js";
import { parseRepoConfig, type RepoConfig } from "../../src/config/repo-config.js";

/** The operator's environment: every variable that shapes a run, each set away from its default. */
const operator = {
  AIDER_BOT_MODEL: "main-model",
  AIDER_BOT_WEAK_MODEL: "weak-model",
  AIDER_BOT_FALLBACK_MODELS: "fallback-a, fallback-b",
  AIDER_BOT_PRICES: '{"main-model":{"input":1.5,"output":6}}',
  AIDER_BOT_MODEL_SETTINGS: "/etc/aider-bot/models.yml",
  AIDER_BOT_ALLOW_PREFILL: "1",
  AIDER_BOT_MAP_THREADS: "3",
  AIDER_BOT_SANDBOX: "bubblewrap",
};

/** The same settings as a workflow step passes them: the models as inputs, the rest in the step's `env:`. */
const workflow = {
  GITHUB_EVENT_NAME: "issue_comment",
  GITHUB_EVENT_PATH: "/tmp/event.json",
  GITHUB_REPOSITORY: "acme/widgets",
  GITHUB_WORKSPACE: "/home/runner/work/widgets/widgets",
  "INPUT_GITHUB-TOKEN": "ghs_token",
  "INPUT_OPENAI-API-KEY": "sk-key",
};
const runner = {
  ...operator,
  ...workflow,
  INPUT_MODEL: "main-model",
  "INPUT_WEAK-MODEL": "weak-model",
};

/** A repository config with every key the CLI has a flag for, each away from its default. */
const repoConfig = {
  edit_format: "whole",
  map_tokens: 2048,
  max_reflections: 2,
  lint: ["npm run lint"],
  test: ["npm test"],
  auto_test: true,
  checks: "off",
};

function parsed(raw: unknown): RepoConfig {
  const result = parseRepoConfig(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config;
}

function value(result: ReturnType<typeof resolveRunSettings>): ComposedSettings {
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

/** Each driver as it composes a run: the App's environment, the Action's runner and inputs, the CLI's flags. */
const drivers = {
  app: () => value(resolveRunSettings(readEnv(operator), parsed(repoConfig), "app")),
  action: () => {
    const env = readActionEnv(runner);
    return value(resolveRunSettings(env.runEnv, parsed(withInputDefaults(repoConfig, env.inputs)), "action"));
  },
  cli: () => {
    const flags: Omit<RunCommandOptions, "repo" | "message" | "file" | "read" | "json"> = {
      editFormat: "whole",
      mapTokens: 2048,
      maxReflections: 2,
      lintCmd: ["npm run lint"],
      testCmd: "npm test",
      checks: "off",
      autoTest: true,
      commit: true,
    };
    return cliSettings(readEnv(operator), flags);
  },
};

/** What each driver sets apart on purpose: where commands run, check discovery, the ledger, transcripts. */
function ownPart(s: ComposedSettings) {
  const { sandbox, checkPlan, spendGuard, transcripts, gitContentIds, ...shared } = s;
  return { own: { sandbox, checkPlan, spendGuard, transcripts, gitContentIds }, shared };
}

describe("the App, the Action and the CLI compose a run alike", () => {
  it("get the same settings for the same environment and repository config", () => {
    const app = ownPart(drivers.app()).shared;
    expect(ownPart(drivers.action()).shared).toEqual(app);
    expect(ownPart(drivers.cli()).shared).toEqual(app);
  });

  it.each(Object.keys(drivers) as (keyof typeof drivers)[])(
    "the %s honours every variable and key it is given (none dropped on the way)",
    (driver) => {
      const s = drivers[driver]();
      expect(s.mapThreads).toBe(3);
      expect(s.llm).toEqual({
        modelSettingsFile: "/etc/aider-bot/models.yml",
        prices: { "main-model": { input: 1.5, output: 6 } },
        allowPrefill: true,
      });
      expect(s.run).toMatchObject({
        model: "main-model",
        weakModel: "weak-model",
        fallbackModels: ["fallback-a", "fallback-b"],
        editFormat: "whole",
        mapTokens: 2048,
        maxReflections: 2,
        lint: ["npm run lint"],
        test: "npm test",
        tests: ["npm test"],
        autoTest: true,
        checks: "off",
        timeoutMs: 20 * 60_000,
        commandTimeoutMs: 10 * 60_000,
        protectedPaths: [".github/workflows/**"],
      });
    },
  );

  it("differ only where the driver is meant to: sandbox, check discovery, spend ledger, transcripts", () => {
    expect(ownPart(drivers.app()).own).toEqual({
      sandbox: "bubblewrap",
      checkPlan: "default-branch",
      spendGuard: true,
      transcripts: true,
      gitContentIds: true,
    });
    expect(ownPart(drivers.action()).own).toEqual({
      sandbox: "runner",
      checkPlan: "default-branch",
      spendGuard: false,
      transcripts: false,
      gitContentIds: true,
    });
    expect(ownPart(drivers.cli()).own).toEqual({
      sandbox: "local",
      checkPlan: "checkout",
      spendGuard: false,
      transcripts: false,
      gitContentIds: false,
    });
  });

  it("an unset environment gives each driver the same defaults", () => {
    const app = value(resolveRunSettings(readEnv({}), parsed(null), "app"));
    const env = readActionEnv(workflow);
    const action = value(resolveRunSettings(env.runEnv, parsed(withInputDefaults(null, env.inputs)), "action"));
    expect(ownPart(action).shared).toEqual(ownPart(app).shared);
    expect(app.mapThreads).toBeUndefined();
    expect(app.llm).toEqual({ prices: {}, allowPrefill: false });
  });
});

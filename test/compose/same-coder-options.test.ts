import { withInputDefaults } from "../../src/action/run-action.js";
import { cliCoderOptions, cliSettings, type RunCommandOptions } from "../../src/cli/run-command.js";
import type { CoderOptions } from "../../src/coder/types.js";
import { resolveRunSettings, type ComposedSettings } from "../../src/compose/run-settings.js";
import { readActionEnv } from "../../src/config/action-env.js";
import { readEnv } from "../../src/config/env.js";
import { parseRepoConfig, type RepoConfig } from "../../src/config/repo-config.js";
import { coderOptions } from "../../src/run/code/code-phase.js";
import { runRequest } from "../../testkit/builders/run-fixtures.js";

/** One operator environment, as the App reads it and as a workflow step passes it (models as inputs). */
const operator = {
  AIDER_BOT_MODEL: "main-model",
  AIDER_BOT_WEAK_MODEL: "weak-model",
  AIDER_BOT_FALLBACK_MODELS: "fallback-a",
  AIDER_BOT_PROMPT_CACHE: "off",
};
const runner = {
  ...operator,
  GITHUB_EVENT_NAME: "workflow_dispatch",
  GITHUB_EVENT_PATH: "/tmp/event.json",
  GITHUB_REPOSITORY: "acme/widgets",
  GITHUB_WORKSPACE: "/home/runner/work/widgets/widgets",
  "INPUT_GITHUB-TOKEN": "ghs_token",
  "INPUT_OPENAI-API-KEY": "sk-key",
  INPUT_MODEL: "main-model",
  "INPUT_WEAK-MODEL": "weak-model",
};

/** One repository config: every key that reaches the coder set away from its default. */
const config = {
  edit_format: "whole",
  map_tokens: 2048,
  max_reflections: 2,
  setup: ["npm ci"],
  lint: ["npm run lint"],
  test: ["npm test"],
  auto_test: true,
  checks: "off",
  timeout: 7,
  command_timeout: 3,
  budget: { max_usd: 2, max_tokens: 90_000 },
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

/** One request: the same message and files, on acme/widgets. */
const message = "make it faster";
const files = ["src/a.ts"];

/** The options each driver finally hands the coder for that request. */
const finalOptions = {
  app: () => {
    const s = value(resolveRunSettings(readEnv(operator), parsed(config), "app"));
    return coderOptions(runRequest({ message, files, settings: s.run }), null, null);
  },
  action: () => {
    const env = readActionEnv(runner);
    const s = value(resolveRunSettings(env.runEnv, parsed(withInputDefaults(config, env.inputs)), "action"));
    return coderOptions(runRequest({ message, files, settings: s.run }), null, null);
  },
  cli: () => {
    const flags: Omit<RunCommandOptions, "repo" | "message" | "file" | "read" | "json"> = {
      editFormat: "whole",
      mapTokens: 2048,
      maxReflections: 2,
      lintCmd: [],
      checks: "off",
      commit: true,
    };
    // The checkout's own .github/aider.yml is the same file the App and the Action read from the default branch.
    const s = cliSettings(readEnv(operator), flags, parsed(config)).run;
    return cliCoderOptions(s, { message, file: files, read: [], commit: true }, "/work/widgets", { checks: [] });
  },
};

/**
 * What differs on purpose: the request's own framing (the App's and the Action's request carries no hostile-text
 * blocks here; the CLI has none), which checkout shares a prompt cache (owner/repo on GitHub, the folder locally),
 * and who is credited (the requester on GitHub; the user commits as themselves locally). Everything else must match.
 */
function shared(o: CoderOptions) {
  const { cacheKey, trailers, untrustedContext, coAuthor, checkCommands, readFiles, ...rest } = o;
  void [cacheKey, untrustedContext, coAuthor, checkCommands, readFiles];
  return { rest, runTrailer: (trailers ?? []).some((t) => t.startsWith("Aider-Bot-Run: ")) };
}

describe("the App, the Action and the CLI hand the coder the same options for the same request", () => {
  it("the final coder options agree apart from the request's framing, the cache scope and the credit", () => {
    const app = shared(finalOptions.app());
    expect(shared(finalOptions.action())).toEqual(app);
    expect(shared(finalOptions.cli())).toEqual(app);
  });

  it.each(Object.keys(finalOptions) as (keyof typeof finalOptions)[])(
    "the %s's coder gets the run's budget and time limit, its setup commands and the run trailer",
    (driver) => {
      const o = finalOptions[driver]();
      expect(o).toMatchObject({
        model: "main-model",
        weakModel: "weak-model",
        editFormat: "whole",
        setupCommands: ["npm ci"],
        lintCommands: ["npm run lint"],
        testCommand: "npm test",
        autoTest: true,
        maxReflections: 2,
        mapTokens: 2048,
        promptCache: false,
        budget: { maxUsd: 2, maxTokens: 90_000, maxWallMs: 7 * 60_000 },
        commandTimeoutMs: 3 * 60_000,
        message,
        files,
        askOnly: false,
        commit: true,
      });
      expect(o.trailers?.some((t) => t.startsWith("Aider-Bot-Run: "))).toBe(true);
      expect(o.trailers?.some((t) => t.includes("aider-bot@users.noreply.github.com"))).toBe(false);
    },
  );
});

import { ActionSetupError, readActionEnv } from "../../src/config/action-env.js";

const runner = {
  GITHUB_EVENT_NAME: "issue_comment",
  GITHUB_EVENT_PATH: "/tmp/event.json",
  GITHUB_REPOSITORY: "acme/widgets",
  GITHUB_API_URL: "https://api.github.com",
  GITHUB_SERVER_URL: "https://github.com",
  GITHUB_WORKSPACE: "/home/runner/work/widgets/widgets",
  GITHUB_OUTPUT: "/tmp/out",
  GITHUB_STEP_SUMMARY: "/tmp/summary",
  GITHUB_RUN_ID: "42",
  GITHUB_RUN_ATTEMPT: "2",
  "INPUT_GITHUB-TOKEN": "ghs_token",
  "INPUT_OPENAI-API-KEY": "sk-key",
};

describe("readActionEnv", () => {
  it("reads the runner's variables and the inputs as a JavaScript action receives them (hyphens kept)", () => {
    const env = readActionEnv({
      ...runner,
      INPUT_MODEL: "gpt-4.1",
      "INPUT_EDIT-FORMAT": "whole",
      "INPUT_CONFIG-PATH": ".github/bot.yml",
      INPUT_TRIGGER: "bot",
    });
    expect(env).toMatchObject({
      eventName: "issue_comment",
      owner: "acme",
      repo: "widgets",
      apiUrl: "https://api.github.com",
      serverUrl: "https://github.com",
      workspace: "/home/runner/work/widgets/widgets",
      outputPath: "/tmp/out",
      summaryPath: "/tmp/summary",
      runKey: "42.2",
      inputs: {
        githubToken: "ghs_token",
        openaiApiKey: "sk-key",
        model: "gpt-4.1",
        editFormat: "whole",
        configPath: ".github/bot.yml",
        trigger: "bot",
        botLogin: "github-actions[bot]",
        openaiBaseUrl: "https://api.openai.com/v1",
      },
    });
    expect(env.inputs.label).toBeUndefined();
  });

  it("reads the underscore spelling the composite action.yml passes, and treats empty inputs as unset", () => {
    const env = readActionEnv({
      ...runner,
      "INPUT_GITHUB-TOKEN": undefined,
      "INPUT_OPENAI-API-KEY": undefined,
      INPUT_GITHUB_TOKEN: "ghs_x",
      INPUT_OPENAI_API_KEY: "",
      INPUT_OPENAI_BASE_URL: "http://127.0.0.1:9/v1/",
      INPUT_MODEL: "",
      INPUT_WEAK_MODEL: " ",
    });
    expect(env.inputs).toMatchObject({
      githubToken: "ghs_x",
      openaiBaseUrl: "http://127.0.0.1:9/v1",
      model: "gpt-4o",
      configPath: ".github/aider.yml",
    });
    expect(env.inputs.openaiApiKey).toBeUndefined();
    expect(env.inputs.weakModel).toBeUndefined();
  });

  it.each([
    [{ GITHUB_EVENT_NAME: "push" }, /`push`, which aider-bot does not handle.*issue_comment/],
    [{ GITHUB_EVENT_NAME: undefined }, /GITHUB_EVENT_NAME is not set/],
    [{ GITHUB_REPOSITORY: "acme" }, /owner\/name/],
    [{ "INPUT_GITHUB-TOKEN": "" }, /`github-token` input is empty/],
    [{ "INPUT_OPENAI-API-KEY": "" }, /`openai-api-key` input is empty: pass it from a secret/],
    [{ "INPUT_EDIT-FORMAT": "fancy" }, /`edit-format` input must be one of diff/],
    [{ INPUT_TRIGGER: "/aider" }, /`trigger` input must be a single command word/],
    [{ "INPUT_CONFIG-PATH": "../../etc/passwd" }, /`config-path` input must be a path inside the repository/],
    [{ "INPUT_OPENAI-BASE-URL": "file:///etc" }, /openai-base-url.*only http and https/],
  ])("refuses a bad setup with what to change: %p", (change, message) => {
    expect(() => readActionEnv({ ...runner, ...change })).toThrow(ActionSetupError);
    expect(() => readActionEnv({ ...runner, ...change })).toThrow(message);
  });

  it("paces GitHub writes unless AIDER_BOT_THROTTLE=0 (a fake GitHub in tests)", () => {
    expect(readActionEnv({ ...runner }).throttle).toBe(true);
    expect(readActionEnv({ ...runner, AIDER_BOT_THROTTLE: "0" }).throttle).toBe(false);
  });

  it("does not echo a malformed URL (it may carry credentials)", () => {
    expect(() => readActionEnv({ ...runner, "INPUT_OPENAI-BASE-URL": "https://user:secret@[bad" })).toThrow(
      /not a valid URL/,
    );
    try {
      readActionEnv({ ...runner, "INPUT_OPENAI-BASE-URL": "https://user:secret@[bad" });
    } catch (error) {
      expect(String(error)).not.toContain("secret");
    }
  });
});

describe("readActionEnv: what the repository's commands may see", () => {
  it("toolchain locations and the variables named in `pass-env`, nothing that looks like a credential", () => {
    const env = readActionEnv({
      ...runner,
      JAVA_HOME: "/opt/java",
      JAVA_HOME_17_X64: "/opt/java17",
      pythonLocation: "/opt/py",
      GOROOT: "/opt/go",
      DATABASE_URL: "postgres://db",
      REDIS_HOST: "redis",
      OTHER: "x",
      NPM_TOKEN: "npm_secret",
      "INPUT_PASS-ENV": "DATABASE_URL, REDIS_HOST\nMISSING",
    });
    expect(env.checkEnv).toEqual({
      JAVA_HOME: "/opt/java",
      JAVA_HOME_17_X64: "/opt/java17",
      pythonLocation: "/opt/py",
      GOROOT: "/opt/go",
      DATABASE_URL: "postgres://db",
      REDIS_HOST: "redis",
    });
  });

  it.each(["INPUT_OPENAI_API_KEY", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN"])("refuses to pass %s", (name) => {
    expect(() => readActionEnv({ ...runner, "INPUT_PASS-ENV": name })).toThrow(/cannot pass/);
  });

  it("refuses a `pass-env` entry that is not a variable name", () => {
    expect(() => readActionEnv({ ...runner, "INPUT_PASS-ENV": "A=1" })).toThrow(/"A=1" is not one/);
  });
});

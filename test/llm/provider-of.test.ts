import { modelSecrets, MODEL_SECRET_VARIABLES } from "../../src/app/model-secrets.js";
import { withoutSecrets } from "../../src/app/run-job-process.js";
import { exposeAzureIdentitySecrets } from "../../src/config/env.js";
import { AZURE_IDENTITY_SECRET_VARIABLES } from "../../src/config/env-providers.js";
import { createBreakpointCache, createPrefixCache } from "../../testkit/prompt-cache-rules.js";
import { claudeModelName, providerOf } from "../../src/llm/provider-of.js";

describe("providerOf", () => {
  it.each([
    ["anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"],
    ["bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"],
    [
      "bedrock/arn:aws:bedrock:us-east-1:123:inference-profile/x",
      "bedrock",
      "arn:aws:bedrock:us-east-1:123:inference-profile/x",
    ],
    ["vertex/claude-sonnet-4-5@20250929", "vertex", "claude-sonnet-4-5@20250929"],
    ["azure/gpt-4o-prod", "azure", "gpt-4o-prod"],
    ["openai/gpt-4o", "openai", "gpt-4o"],
    ["openai/anthropic/claude-sonnet-4.5", "openai", "anthropic/claude-sonnet-4.5"],
    ["gpt-4o", "openai", "gpt-4o"],
    ["openrouter/deepseek/deepseek-chat", "openai", "openrouter/deepseek/deepseek-chat"],
    ["anthropic/", "openai", "anthropic/"],
  ])("%s → %s %s", (name, provider, model) => {
    expect(providerOf(name)).toEqual({ provider, model });
  });

  it("claudeModelName: the settings table's name of a Bedrock or Vertex id", () => {
    expect(claudeModelName("us.anthropic.claude-sonnet-4-5-20250929-v1:0")).toBe("claude-sonnet-4-5-20250929");
    expect(claudeModelName("anthropic.claude-3-5-haiku-20241022-v1:0")).toBe("claude-3-5-haiku-20241022");
    expect(claudeModelName("claude-sonnet-4-5@20250929")).toBe("claude-sonnet-4-5-20250929");
    expect(claudeModelName("gpt-4o")).toBe("gpt-4o");
  });
});

describe("modelSecrets: a job process gets only the keys of its run's providers", () => {
  const source = {
    OPENAI_API_KEY: "sk-openai",
    ANTHROPIC_API_KEY: "sk-ant",
    AWS_ACCESS_KEY_ID: "AKIA",
    AWS_SECRET_ACCESS_KEY: "aws-secret",
    AZURE_OPENAI_API_KEY: "azure",
    AWS_REGION: "us-east-1",
  };
  it("a Bedrock run with an OpenAI fallback: the AWS keys and the OpenAI key, not Anthropic's or Azure's", () => {
    expect(modelSecrets({ model: "bedrock/x", editorModel: "bedrock/x" }, ["gpt-4o-mini"], source)).toEqual({
      OPENAI_API_KEY: "sk-openai",
      AWS_ACCESS_KEY_ID: "AKIA",
      AWS_SECRET_ACCESS_KEY: "aws-secret",
    });
  });
  it("an Anthropic run whose repository names its own fallbacks: the operator's are not used", () => {
    expect(modelSecrets({ model: "anthropic/c", fallbackModels: ["azure/d"] }, ["gpt-4o"], source)).toEqual({
      ANTHROPIC_API_KEY: "sk-ant",
      AZURE_OPENAI_API_KEY: "azure",
    });
  });
  it("Entra ID: an Azure run gets the identity's secrets, any other run none of them", () => {
    const entra = {
      ...source,
      AZURE_OPENAI_API_KEY: undefined,
      IDENTITY_ENDPOINT: "http://127.0.0.1:9/msi/token",
      IDENTITY_HEADER: "identity-header-secret",
      AZURE_CLIENT_SECRET: "sp-secret",
      AZURE_CLIENT_ID: "client-id",
    };
    expect(modelSecrets({ model: "azure/gpt-4o-prod" }, [], entra)).toEqual({
      IDENTITY_HEADER: "identity-header-secret",
      AZURE_CLIENT_SECRET: "sp-secret",
    });
    const other = modelSecrets({ model: "gpt-4o" }, ["anthropic/c"], entra);
    expect(Object.keys(other).sort()).toEqual(["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]);
    const env = withoutSecrets(entra);
    expect([env.IDENTITY_HEADER, env.AZURE_CLIENT_SECRET]).toEqual([undefined, undefined]);
    // Where the identity is, is not a secret: the library finds it in the job process's environment.
    expect([env.IDENTITY_ENDPOINT, env.AZURE_CLIENT_ID]).toEqual(["http://127.0.0.1:9/msi/token", "client-id"]);
  });
  it("the Entra ID secrets the environment table reads are the ones a job process is denied", () => {
    expect([...AZURE_IDENTITY_SECRET_VARIABLES].every((name) => MODEL_SECRET_VARIABLES.includes(name))).toBe(true);
    const target: Record<string, string | undefined> = {};
    exposeAzureIdentitySecrets({ IDENTITY_HEADER: "h", OPENAI_API_KEY: "sk-x", AZURE_OPENAI_API_KEY: "k" }, target);
    expect(target).toEqual({ IDENTITY_HEADER: "h" });
  });
  it("every provider key is kept out of the job process's environment; the region is not a secret", () => {
    const env = withoutSecrets(source);
    for (const name of MODEL_SECRET_VARIABLES) expect(env[name]).toBeUndefined();
    expect(env.AWS_REGION).toBe("us-east-1");
  });
});

describe("prompt-cache rules of the fakes", () => {
  const block = (key: string, tokens: number, breakpoint = false) => ({ key, tokens, breakpoint });
  it("Anthropic: a prefix under 1,024 tokens is not cached; an appended request reads the previous breakpoint", () => {
    const cache = createBreakpointCache();
    expect(cache.account("m", [block("small", 500, true), block("q", 10)])).toEqual({ read: 0, write: 0, input: 510 });
    const first = [block("sys", 2000, true), block("q1", 50, true)];
    expect(cache.account("m", first)).toEqual({ read: 0, write: 2050, input: 0 });
    expect(cache.account("m", [...first, block("a1", 20), block("q2", 30, true)])).toEqual({
      read: 2050,
      write: 50,
      input: 0,
    });
    // A changed first block breaks every prefix after it.
    expect(cache.account("m", [block("sys*", 2000, true), block("q1", 50, true)]).read).toBe(0);
    // Another model has its own cache.
    expect(cache.account("other", first).read).toBe(0);
  });
  it("OpenAI: longest common prefix from 1,024 tokens in 128-token steps, per model and key", () => {
    const cache = createPrefixCache();
    const a = "x".repeat(4 * 1500);
    expect(cache.account("k", a)).toEqual({ cached: 0, total: 1500 });
    expect(cache.account("k", `${a}more`).cached).toBe(1024 + 3 * 128);
    expect(cache.account("other", a).cached).toBe(0);
    expect(cache.account("k", `y${a}`).cached).toBe(0);
  });
  it("a job process gets the folder of the App's key file (to hide it), never the key's path", () => {
    const env = withoutSecrets({ PATH: "/usr/bin", PRIVATE_KEY_PATH: "/etc/aider-bot/keys/app.pem" });
    expect(env.PRIVATE_KEY_PATH).toBeUndefined();
    expect(env.AIDER_BOT_KEY_DIR).toBe("/etc/aider-bot/keys");
  });
});

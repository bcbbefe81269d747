import { defaultDataDir, readEnv } from "../../src/config/env.js";

describe("readEnv", () => {
  it("has working defaults for an empty environment", () => {
    const env = readEnv({});
    expect(env).toMatchObject({
      openaiBaseUrl: "https://api.openai.com/v1",
      model: "gpt-4o",
      concurrency: 2,
      port: 3000,
      logLevel: "info",
      webhookPath: "/api/github/webhooks",
    });
    expect(env.githubBaseUrl).toBeUndefined();
    expect(env.redisUrl).toBeUndefined();
  });

  it("reads App credentials, the LLM endpoint, Redis, concurrency and the work dir", () => {
    const env = readEnv({
      APP_ID: "123",
      PRIVATE_KEY_PATH: "/k.pem",
      WEBHOOK_SECRET: "s",
      OPENAI_BASE_URL: "http://127.0.0.1:8080/v1",
      OPENAI_API_KEY: "sk-x",
      AIDER_BOT_MODEL: "local/llama",
      REDIS_URL: "redis://127.0.0.1:6379",
      AIDER_BOT_CONCURRENCY: "4",
      AIDER_BOT_WORK_DIR: "/srv/jobs",
      LOG_LEVEL: "debug",
    });
    expect(env).toMatchObject({
      appId: "123",
      privateKeyPath: "/k.pem",
      webhookSecret: "s",
      openaiBaseUrl: "http://127.0.0.1:8080/v1",
      openaiApiKey: "sk-x",
      model: "local/llama",
      redisUrl: "redis://127.0.0.1:6379",
      concurrency: 4,
      workDir: "/srv/jobs",
      logLevel: "debug",
    });
  });

  it("derives the GitHub API base URL from GHE_HOST, or takes GITHUB_API_URL", () => {
    expect(readEnv({ GHE_HOST: "ghe.example.com" }).githubBaseUrl).toBe("https://ghe.example.com/api/v3");
    expect(readEnv({ GHE_HOST: "127.0.0.1:8080", GHE_PROTOCOL: "http" }).githubBaseUrl).toBe(
      "http://127.0.0.1:8080/api/v3",
    );
    expect(readEnv({ GITHUB_API_URL: "https://api.example.com" }).githubBaseUrl).toBe("https://api.example.com");
  });

  it.each([
    [{ AIDER_BOT_CONCURRENCY: "0" }, /AIDER_BOT_CONCURRENCY must be a whole number ≥ 1/],
    [{ PORT: "http" }, /PORT must be a port number/],
    [{ GHE_PROTOCOL: "ftp", GHE_HOST: "x" }, /GHE_PROTOCOL must be https or http/],
    [{ GITHUB_API_URL: "not a url" }, /GITHUB_API_URL must be a URL like/],
    [{ OPENAI_BASE_URL: "file:///etc/passwd" }, /OPENAI_BASE_URL .* only http and https/],
    [{ LOG_LEVEL: "loud" }, /LOG_LEVEL must be one of trace, debug/],
    [{ AIDER_BOT_SANDBOX: "maybe" }, /AIDER_BOT_SANDBOX must be auto, container, bubblewrap, on or off/],
  ])("rejects %j with an actionable message", (source, message) => {
    expect(() => readEnv(source)).toThrow(message);
  });

  it("never echoes a URL that may hold credentials", () => {
    let message = "";
    try {
      readEnv({ OPENAI_BASE_URL: "ftp://user:sk-secret@host/v1" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/OPENAI_BASE_URL/);
    expect(message).not.toContain("sk-secret");
  });
  test("AIDER_BOT_MAP_THREADS limits the repo map's worker threads; anything but a whole number is refused", () => {
    expect(readEnv({}).mapThreads).toBeUndefined();
    expect(readEnv({ AIDER_BOT_MAP_THREADS: "0" }).mapThreads).toBe(0);
    expect(readEnv({ AIDER_BOT_MAP_THREADS: "3" }).mapThreads).toBe(3);
    expect(() => readEnv({ AIDER_BOT_MAP_THREADS: "two" })).toThrow(/AIDER_BOT_MAP_THREADS must be a whole number/);
  });

  test("LOG_FORMAT, AIDER_BOT_THROTTLE, AIDER_BOT_SHUTDOWN_MS, AIDER_BOT_PROGRESS and AIDER_BOT_SPARE are read here, with defaults", () => {
    expect(readEnv({})).toMatchObject({
      logFormat: "pretty",
      throttle: true,
      shutdownMs: 60_000,
      progress: true,
      spare: true,
    });
    expect(
      readEnv({
        LOG_FORMAT: "json",
        AIDER_BOT_THROTTLE: "0",
        AIDER_BOT_SHUTDOWN_MS: "5000",
        AIDER_BOT_PROGRESS: "0",
        AIDER_BOT_SPARE: "0",
      }),
    ).toMatchObject({
      logFormat: "json",
      throttle: false,
      shutdownMs: 5000,
      progress: false,
      spare: false,
    });
    expect(() => readEnv({ LOG_FORMAT: "xml" })).toThrow(/LOG_FORMAT must be pretty or json, got "xml"/);
    expect(() => readEnv({ AIDER_BOT_SHUTDOWN_MS: "soon" })).toThrow(
      /AIDER_BOT_SHUTDOWN_MS must be a number of milliseconds/,
    );
  });
  test("one error lists every problem, each naming its variable", () => {
    let message = "";
    try {
      readEnv({ AIDER_BOT_CONCURRENCY: "0", PORT: "http", LOG_FORMAT: "xml" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/3 problems/);
    expect(message).toMatch(/AIDER_BOT_CONCURRENCY must be a whole number ≥ 1, got "0"/);
    expect(message).toMatch(/PORT must be a port number, got "http"/);
    expect(message).toMatch(/LOG_FORMAT must be pretty or json, got "xml"/);
  });

  test("an empty variable counts as unset, so its default applies", () => {
    expect(
      readEnv({ OPENAI_BASE_URL: "", AIDER_BOT_MODEL: "", AIDER_BOT_CONCURRENCY: "", PRIVATE_KEY: "" }),
    ).toMatchObject({
      openaiBaseUrl: "https://api.openai.com/v1",
      model: "gpt-4o",
      concurrency: 2,
    });
    expect(readEnv({ PRIVATE_KEY: "" }).privateKey).toBeUndefined();
  });

  it("keeps the embedded store in a data directory that does not depend on the working directory", () => {
    expect(defaultDataDir({}, "/home/ops")).toBe("/home/ops/.local/state/aider-bot/queue");
    expect(defaultDataDir({ XDG_STATE_HOME: "/var/lib/state" }, "/home/ops")).toBe("/var/lib/state/aider-bot/queue");
    // A relative XDG_STATE_HOME is invalid by the spec: it would depend on the working directory again.
    expect(defaultDataDir({ XDG_STATE_HOME: "state" }, "/home/ops")).toBe("/home/ops/.local/state/aider-bot/queue");
    expect(readEnv({}).dataDir).toBe(defaultDataDir());
    expect(readEnv({ AIDER_BOT_DATA_DIR: "/data/queue" }).dataDir).toBe("/data/queue");
  });
});

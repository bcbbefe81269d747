import { readEnv } from "../../src/config/env.js";
import { jobEnv, type JobRunnerDeps } from "../../src/app/create-job-runner.js";

describe("the settings a job gets", () => {
  it("are where to work and cache, never the App key, the webhook secret or the model key", () => {
    const env = readEnv({
      PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----\n",
      WEBHOOK_SECRET: "webhook-secret-value",
      OPENAI_API_KEY: "sk-model-key-value",
      AIDER_BOT_WORK_DIR: "/srv/work",
      AIDER_BOT_CACHE_DIR: "/srv/cache",
      AIDER_BOT_MAP_THREADS: "2",
    });
    const given: JobRunnerDeps["env"] = jobEnv(env);
    expect(given).toEqual({ workDir: "/srv/work", cacheDir: "/srv/cache", mapThreads: 2 });
    expect(JSON.stringify(given)).not.toMatch(/PRIVATE KEY|webhook-secret-value|sk-model-key-value/);
    // The type holds no secret either (checked by tsc over test/).
    // @ts-expect-error the job's env has no privateKey
    void given.privateKey;
    // @ts-expect-error the job's env has no webhookSecret
    void given.webhookSecret;
  });
});

import nock from "nock";
import { pino } from "pino";
import { actionRedactor } from "../../src/action/run-action.js";
import { jobRedactor, secretFingerprints } from "../../src/app/run-job-process.js";
import { appRedactor } from "../../src/app/create-probot.js";
import { cliRedactor } from "../../src/cli/run-command.js";
import { composeClients } from "../../src/compose/compose-clients.js";
import { readActionEnv } from "../../src/config/action-env.js";
import { readEnv } from "../../src/config/env.js";
import { publishTranscript } from "../../src/run/report/publish-transcript.js";
import type { RunGitHub } from "../../src/run/run-ports.js";
import { createRedactingLogger } from "../../src/security/create-redacting-logger.js";
import { REDACTED, type SecretRedactor } from "../../src/security/redact-secrets.js";
import { runRequest } from "../../testkit/builders/run-fixtures.js";

// Values shaped like no known secret, so only a redactor that was given them can catch them.
const JOB_TOKEN = "job-installation-token-value-1";
const APP_KEY_LINE = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7";
const WEBHOOK_SECRET = "receiver-webhook-secret-value-2";
const ACTION_TOKEN = "action-workflow-token-value-3";
const ACTION_MODEL_KEY = "action-model-key-value-4";
const CLI_MODEL_KEY = "cli-model-key-value-5";

/** Each driver's redactor, built by its own composition root from what that driver holds. */
const drivers: { name: string; secret: string; redactor: () => SecretRedactor }[] = [
  {
    name: "App job process",
    // The App key is known to the job only by its fingerprint: the pass catches its line all the same.
    secret: APP_KEY_LINE,
    redactor: () =>
      jobRedactor({
        apiToken: JOB_TOKEN,
        gitToken: "job-git-token-value-6",
        fingerprints: secretFingerprints([`-----BEGIN PRIVATE KEY-----\n${APP_KEY_LINE}\n-----END PRIVATE KEY-----`]),
      }),
  },
  {
    name: "App receiver",
    secret: WEBHOOK_SECRET,
    redactor: () =>
      appRedactor(
        readEnv({ APP_ID: "1", OPENAI_API_KEY: "receiver-model-key-7" }),
        "not-a-pem-key-value-8",
        WEBHOOK_SECRET,
      ),
  },
  {
    name: "Action",
    secret: ACTION_MODEL_KEY,
    redactor: () =>
      actionRedactor(
        readActionEnv({
          GITHUB_EVENT_NAME: "issue_comment",
          GITHUB_EVENT_PATH: "/nonexistent/event.json",
          GITHUB_REPOSITORY: "acme/widgets",
          GITHUB_WORKSPACE: "/tmp",
          "INPUT_GITHUB-TOKEN": ACTION_TOKEN,
          "INPUT_OPENAI-API-KEY": ACTION_MODEL_KEY,
          "INPUT_OPENAI-BASE-URL": "http://127.0.0.1:9/v1",
        }),
      ),
  },
  {
    name: "CLI",
    secret: CLI_MODEL_KEY,
    redactor: () => cliRedactor(readEnv({ OPENAI_API_KEY: CLI_MODEL_KEY, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" })),
  },
];

describe.each(drivers)("the $name's redactor, a value from its composition root", ({ secret, redactor }) => {
  // nock patches node's http for the whole worker: later test files in it must reach their local servers again.
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("redacts the driver's secret in a comment written through the root's GitHub client", async () => {
    const r = redactor();
    nock.disableNetConnect();
    let sent = "";
    const scope = nock("https://api.github.test")
      .post("/repos/acme/web/issues/3/comments", (body: { body: string }) => ((sent = body.body), true))
      .reply(201, { id: 1 });
    const clients = composeClients({
      redactor: r,
      source: {},
      models: { endpoint: { baseUrl: "http://127.0.0.1:9/v1", apiKey: undefined } },
      github: { throttle: false, log: pino({ level: "silent" }) },
    });
    await clients
      .github("ghs_token", { baseUrl: "https://api.github.test" })
      .rest.issues.createComment({ owner: "acme", repo: "web", issue_number: 3, body: `output: ${secret} (done)` });
    expect(scope.isDone()).toBe(true);
    expect(sent).toBe(`output: ${REDACTED} (done)`);
  });

  it("redacts the driver's secret in a log line", async () => {
    const lines: string[] = [];
    const log = await createRedactingLogger({
      level: "info",
      redactor: redactor(),
      sink: { write: (l) => lines.push(l) },
    });
    log.info({ output: `leaked ${secret}` }, "check failed");
    expect(lines.join("")).not.toContain(secret);
    expect(lines.join("")).toContain(REDACTED);
  });

  it("redacts the driver's secret in a run's transcript before it is stored", async () => {
    const r = redactor();
    let stored = "";
    await publishTranscript({
      req: runRequest(),
      deps: {
        github: {} as RunGitHub,
        redact: r.redact,
        transcripts: { save: async (_id, text) => void (stored = text) },
      },
      checkRunId: null,
      events: [{ kind: "request", round: 1, model: "gpt-4o", messages: [{ role: "user", content: `cat: ${secret}` }] }],
      log: pino({ level: "silent" }),
    });
    expect(stored).toContain("cat: ");
    expect(stored).not.toContain(secret);
  });
});

describe("redactors of two drivers in one process", () => {
  it("know only their own driver's secrets: building one registers nothing with another", () => {
    const [job, receiver, action, cli] = drivers.map((d) => d.redactor());
    // Each catches its own driver's secret ...
    expect(job!.redact(APP_KEY_LINE)).toBe(REDACTED);
    expect(action!.redact(ACTION_TOKEN)).toBe(REDACTED);
    expect(cli!.redact(CLI_MODEL_KEY)).toBe(REDACTED);
    // ... and was never told another's: with one module-level redactor, each driver's secrets were everyone's.
    expect(cli!.redact(`${ACTION_TOKEN} ${JOB_TOKEN} ${WEBHOOK_SECRET}`)).toBe(
      `${ACTION_TOKEN} ${JOB_TOKEN} ${WEBHOOK_SECRET}`,
    );
    expect(receiver!.redact(`${JOB_TOKEN} ${CLI_MODEL_KEY}`)).toBe(`${JOB_TOKEN} ${CLI_MODEL_KEY}`);
  });

  it("a token minted after a writer took `redact` is still redacted by that writer (order does not matter)", () => {
    const r = drivers[0]!.redactor();
    const writer = r.redact;
    // What the GitHub write guard does for each installation token GitHub mints while the run goes on.
    r.add("minted-later-token-value-9");
    expect(writer("minted-later-token-value-9")).toBe(REDACTED);
  });
});

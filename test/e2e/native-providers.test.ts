import { startFakeClaudeServer, type FakeClaudeServer } from "../../testkit/fake-claude-server.js";
import { startFakeGceMetadata, type FakeGceMetadata } from "../../testkit/fake-gce-metadata.js";
import { startFakeOpenAiCacheServer, type FakeOpenAiCacheServer } from "../../testkit/fake-openai-cache-server.js";
import { commitReply } from "../../testkit/scripted-llm-server.js";
import { startE2EApp, UNSANDBOXED, type E2E, type E2EApp } from "../helpers/e2e-harness.js";

const bot = "aider-bot[bot]";
const ANTHROPIC_KEY = "sk-ant-e2e-0123456789abcdef";
const AWS = {
  accessKeyId: "AKIAE2EFAKEKEY123456",
  secretAccessKey: "e2e/secret+access/key0123456789abcdefghi",
  region: "us-west-2",
};
const AZURE_KEY = "azure-e2e-key-0123456789abcdef";
const BEDROCK_MODEL = "us.anthropic.claude-sonnet-4-6-v1:0";

const files = { "src/calc.py": "def add(a, b):\n    return a - b\n" };
// The default branch (`a - b`) passes the test, so the first two answers' failures are the change's and reflected.
const config = (model: string, extra = "") =>
  `model: ${model}\n${extra}test: "grep -q -e 'a + b' -e 'a - b' src/calc.py || (echo 'TEST_FAILED: expected a + b'; exit 1)"\nmax_reflections: 2\n`;
const edit = (from: string, to: string) =>
  `src/calc.py\n\`\`\`python\n<<<<<<< SEARCH\n    return ${from}\n=======\n    return ${to}\n>>>>>>> REPLACE\n\`\`\`\n`;
/** Three rounds: two edits that fail the test, the third passes. */
const threeRounds = [
  edit("a - b", "a * b"),
  edit("a * b", "a / b"),
  edit("a / b", "a + b"),
  commitReply("fix: add adds"),
];

/**
 * The real job path (the app's webhook, its job process, the coder's reflection rounds) against each native provider's
 * wire-level fake: the job process reaches Claude directly, on Bedrock (signed requests checked), on Vertex (a token
 * from the fake metadata server) and Azure OpenAI (api-key, api-version), with the keys the run's models need.
 */
describe("e2e: native providers", () => {
  let app: E2EApp;
  let e2e: E2E;
  let claude: FakeClaudeServer;
  let azure: FakeOpenAiCacheServer;
  let metadata: FakeGceMetadata;

  beforeAll(async () => {
    metadata = await startFakeGceMetadata({ token: "ya29.e2e-token", projectId: "acme-ai" });
    claude = await startFakeClaudeServer([], { apiKey: ANTHROPIC_KEY, aws: AWS, vertexToken: metadata.token });
    azure = await startFakeOpenAiCacheServer([], { azureKey: AZURE_KEY, apiVersion: "2024-10-21" });
    app = await startE2EApp({
      env: {
        ...UNSANDBOXED,
        ANTHROPIC_API_KEY: ANTHROPIC_KEY,
        ANTHROPIC_BASE_URL: claude.url,
        AWS_REGION: AWS.region,
        AWS_ACCESS_KEY_ID: AWS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
        ANTHROPIC_BEDROCK_BASE_URL: claude.url,
        CLOUD_ML_REGION: "us-east5",
        ANTHROPIC_VERTEX_PROJECT_ID: "acme-ai",
        ANTHROPIC_VERTEX_BASE_URL: `${claude.url}/v1`,
        GCE_METADATA_HOST: metadata.host,
        AZURE_OPENAI_ENDPOINT: azure.url,
        AZURE_OPENAI_API_KEY: AZURE_KEY,
        OPENAI_API_VERSION: "2024-10-21",
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    await claude?.close();
    await azure?.close();
    await metadata?.close();
  });

  const statusOf = (deliveryId: string) =>
    e2e.repo.comments.find((c) => c.user === bot && c.body.includes(`aider-bot:run:${deliveryId}`))?.body ?? "";

  async function run(model: string, extra = ""): Promise<string> {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": config(model, extra) },
      permissions: { ann: "write" },
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const { deliveryId } = await e2e.send(
      "issue_comment",
      e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"),
    );
    await e2e.idle();
    return statusOf(deliveryId);
  }
  const editRequests = <T extends { body: { system?: unknown; messages: unknown } }>(requests: T[]) =>
    requests.filter((r) => !JSON.stringify(r.body.system ?? "").includes("commit messages"));

  it.each([
    ["anthropic", "anthropic/claude-sonnet-4-6"],
    ["bedrock", `bedrock/${BEDROCK_MODEL}`],
    ["vertex", "vertex/claude-sonnet-4-6@20260101"],
  ])("%s: a three-round run (two failing tests, then green) is pushed", async (protocol, model) => {
    claude.push(...threeRounds);
    const before = claude.requests.length;
    const status = await run(model);
    expect(status).toContain("🚀 Pushed");
    const mine = claude.requests.slice(before);
    expect(new Set(mine.map((r) => r.protocol))).toEqual(new Set([protocol]));
    expect(editRequests(mine)).toHaveLength(3);
    // Each round re-sends the previous one: the third request is the longest.
    const sizes = editRequests(mine).map((r) => JSON.stringify(r.body.messages).length);
    expect(sizes[2]!).toBeGreaterThan(sizes[0]!);
  });

  it("azure: a three-round run against a deployment, with the api-key and api-version", async () => {
    azure.push(...threeRounds);
    const before = azure.requests.length;
    const status = await run("azure/gpt-4o-prod");
    expect(status).toContain("🚀 Pushed");
    const mine = azure.requests.slice(before);
    expect(mine.every((r) => r.protocol === "azure" && r.headers["api-key"] === AZURE_KEY)).toBe(true);
    expect(mine.filter((r) => r.body.model === "gpt-4o-prod").length).toBeGreaterThanOrEqual(3);
  });

  it("Claude on Bedrock down (500): the OpenAI-compatible fallback model answers and the status names it", async () => {
    claude.forModel(BEDROCK_MODEL, { standing: { status: 500 } });
    try {
      e2e = await app.scenario({
        files: { ...files, ".github/aider.yml": `model: bedrock/${BEDROCK_MODEL}\nfallback_models: [gpt-4o-mini]\n` },
        permissions: { ann: "write" },
        replies: [edit("a - b", "a + b")],
      });
      const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
      const sent = await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
      await e2e.idle();
      const status = statusOf(sent.deliveryId);
      expect(status).toContain("🚀 Pushed");
      expect(status).toContain("answered by `gpt-4o-mini`");
      expect(e2e.llm.requests[0]!.body.model).toBe("gpt-4o-mini");
    } finally {
      claude.forModel(BEDROCK_MODEL, null);
    }
  });
});

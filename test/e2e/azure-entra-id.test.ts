import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startFakeAzureIdentity, type FakeAzureIdentity } from "../../testkit/fake-azure-identity.js";
import { startFakeOpenAiCacheServer, type FakeOpenAiCacheServer } from "../../testkit/fake-openai-cache-server.js";
import { commitReply } from "../../testkit/scripted-llm-server.js";
import { startE2EApp, UNSANDBOXED, type E2EApp } from "../helpers/e2e-harness.js";

const bot = "aider-bot[bot]";
const HEADER = "e2e-identity-header-0123456789abcdef";
const TOKEN = "eyJ0eXAi.e2e-entra-token.0123456789abcdef";
const VERSION = "2024-10-21";

const edit = (from: string, to: string) =>
  `src/calc.py\n\`\`\`python\n<<<<<<< SEARCH\n    return ${from}\n=======\n    return ${to}\n>>>>>>> REPLACE\n\`\`\`\n`;

/**
 * Azure OpenAI through Entra ID on the real job path: the app has no AZURE_OPENAI_API_KEY, only a managed identity
 * (App Service style: IDENTITY_ENDPOINT and the secret IDENTITY_HEADER, served by the fake on 127.0.0.1). The job
 * process gets the header over IPC (its environment is started without it), @azure/identity gets a token from the
 * fake, and the fake Azure endpoint accepts only that token. Neither the header nor the token reaches the
 * repository's test command, the app's logs or GitHub.
 */
describe("e2e: Azure OpenAI with Entra ID (managed identity, no key)", () => {
  let app: E2EApp;
  let identity: FakeAzureIdentity;
  let azure: FakeOpenAiCacheServer;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "entra-e2e-"));
    identity = await startFakeAzureIdentity({ header: HEADER, token: TOKEN });
    azure = await startFakeOpenAiCacheServer([], { azureToken: TOKEN, apiVersion: VERSION });
    app = await startE2EApp({
      env: {
        ...UNSANDBOXED,
        AZURE_OPENAI_ENDPOINT: azure.url,
        OPENAI_API_VERSION: VERSION,
        IDENTITY_ENDPOINT: identity.endpoint,
        IDENTITY_HEADER: HEADER,
        // Where IMDS would be asked if the chain got that far: the fake, never 169.254.169.254.
        AZURE_POD_IDENTITY_AUTHORITY_HOST: identity.imdsHost,
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    await identity?.close();
    await azure?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("a two-round run on azure/<deployment> is pushed with the identity's token, which no text or command sees", async () => {
    const envFile = path.join(dir, "check-env.txt");
    const e2e = await app.scenario({
      files: {
        "src/calc.py": "def add(a, b):\n    return a - b\n",
        ".github/aider.yml": `model: azure/gpt-4o-prod\ntest: "env >> ${envFile}; grep -q 'a + b' src/calc.py || (echo 'TEST_FAILED: expected a + b'; exit 1)"\nmax_reflections: 2\n`,
      },
      permissions: { ann: "write" },
    });
    azure.push(edit("a - b", "a * b"), edit("a * b", "a + b"), commitReply("fix: add adds"));
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const { deliveryId } = await e2e.send(
      "issue_comment",
      e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"),
    );
    await e2e.idle();
    const status = e2e.repo.comments.find((c) => c.user === bot && c.body.includes(`aider-bot:run:${deliveryId}`));
    expect(status?.body).toContain("🚀 Pushed");

    expect(azure.requests.length).toBeGreaterThanOrEqual(2);
    for (const r of azure.requests) {
      expect(r.protocol).toBe("azure");
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(r.headers["api-key"]).toBeUndefined();
    }
    expect(identity.requests.length).toBeGreaterThanOrEqual(1);
    expect(identity.requests.every((r) => r.authorised && r.resource === "https://cognitiveservices.azure.com")).toBe(
      true,
    );

    // The test command ran (twice) and saw neither secret, nor the variable that names the header.
    const checkEnv = await readFile(envFile, "utf8");
    expect(checkEnv).toContain("PATH=");
    for (const secret of [HEADER, TOKEN, "IDENTITY_HEADER"]) expect(checkEnv).not.toContain(secret);
    const written = [e2e.logs(), ...e2e.repo.comments.map((c) => c.body)].join("\n");
    for (const secret of [HEADER, TOKEN]) expect(written).not.toContain(secret);
  });
});

import { generateKeyPairSync } from "node:crypto";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { COMMENT_LIMIT } from "../../src/github/cap-markdown.js";
import { githubWriteGuard, guardWriteParams } from "../../src/github/guard-github-writes.js";
import { createSecretRedactor, REDACTED } from "../../src/security/redact-secrets.js";

const SECRET = "the-webhook-secret-value";

describe("guardWriteParams", () => {
  it("redacts comment bodies, titles, PR bodies and Check Run output, and leaves route parameters alone", () => {
    const redactor = createSecretRedactor([SECRET]);
    const sent = [
      guardWriteParams({ owner: "o", repo: "r", issue_number: 1, body: `leak ${SECRET}` }, redactor),
      guardWriteParams(
        { owner: "o", repo: "r", title: `t ${SECRET}`, body: `b ${SECRET}`, head: "aider/x", base: "main" },
        redactor,
      ),
      guardWriteParams(
        { owner: "o", repo: "r", check_run_id: 5, output: { title: "x", summary: `s ${SECRET}`, text: `t ${SECRET}` } },
        redactor,
      ),
    ];
    expect(JSON.stringify(sent)).not.toContain(SECRET);
    expect(sent[0]).toEqual({ owner: "o", repo: "r", issue_number: 1, body: `leak ${REDACTED}` });
    expect(sent[1]!.head).toBe("aider/x");
  });

  it("fits a body and Check Run text to GitHub's limits, keeping the head (markers, outcome)", () => {
    const redactor = createSecretRedactor();
    const body = `<!-- aider-bot:run:1 -->\n🚀 outcome\n${"x".repeat(100_000)}`;
    const sent = guardWriteParams({ comment_id: 1, body }, redactor).body as string;
    expect(sent.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(sent.startsWith("<!-- aider-bot:run:1 -->\n🚀 outcome")).toBe(true);
    const output = guardWriteParams({ output: { title: "t", summary: "s".repeat(70_000) } }, redactor).output as {
      summary: string;
    };
    expect(output.summary.length).toBeLessThanOrEqual(65_535);
  });
});

describe("githubWriteGuard (Octokit plugin)", () => {
  it("redacts request options in place and learns installation tokens as GitHub mints them", async () => {
    const redactor = createSecretRedactor();
    let before: ((o: Record<string, unknown>) => void) | undefined;
    let after: ((r: { data?: unknown }, o: Record<string, unknown>) => void) | undefined;
    githubWriteGuard(redactor)({
      hook: { before: (_n, fn) => void (before = fn), after: (_n, fn) => void (after = fn) },
    });
    after!(
      { data: { token: "v1.minted-installation-token" } },
      { method: "POST", url: "/app/installations/{installation_id}/access_tokens" },
    );
    const options: Record<string, unknown> = {
      method: "POST",
      url: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
      headers: { authorization: "token v1.minted-installation-token" },
      body: "echo v1.minted-installation-token",
    };
    before!(options);
    expect(options.body).toBe(`echo ${REDACTED}`);
    // Headers are how the token is meant to travel: untouched.
    expect(options.headers).toEqual({ authorization: "token v1.minted-installation-token" });
  });
});

describe("githubWriteGuard on a real ProbotOctokit", () => {
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("learns the installation token GitHub mints and redacts it from a comment written with it", async () => {
    nock.disableNetConnect();
    const token = "v1.installation0123456789abcdef";
    const redactor = createSecretRedactor();
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 1024,
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    const sent: string[] = [];
    nock("https://api.github.com")
      .post("/app/installations/7/access_tokens")
      .reply(201, { token, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: {} })
      .post("/repos/o/r/issues/1/comments", (b: { body: string }) => (sent.push(b.body), true))
      .times(2)
      .matchHeader("authorization", `token ${token}`)
      .reply(201, { id: 1 });
    const Octokit = ProbotOctokit.plugin(githubWriteGuard(redactor)).defaults({
      throttle: { enabled: false },
      retry: { enabled: false },
    });
    const octokit = new Octokit({ auth: { appId: 1, privateKey, installationId: 7 } });
    // The first request mints the token (its own body was made before the token existed, so cannot hold it).
    await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: "o",
      repo: "r",
      issue_number: 1,
      body: "queued",
    });
    await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: "o",
      repo: "r",
      issue_number: 1,
      body: `the test printed ${token}`,
    });
    expect(sent).toEqual(["queued", `the test printed ${REDACTED}`]);
  });
});

import { parseCommitSubject } from "../../src/coder/commit-policy.js";
import { generateCommitMessage } from "../../src/coder/generate-commit-message.js";
import { createLlmClient } from "../../src/llm/create-llm-client.js";
import { commitReply, startScriptedLlmServer, type ScriptedLlmServer } from "../../testkit/scripted-llm-server.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

describe("parseCommitSubject", () => {
  it.each([
    ["feat: add retry logic to the fetch client", "feat: add retry logic to the fetch client"],
    ['"fix: handle empty input."', "fix: handle empty input"],
    ["`refactor(pager): split render`", "refactor(pager): split render"],
    ["Fix: handle empty input", "fix: handle empty input"],
    ["Here is the commit message:\n\n```\ndocs: explain the cache key\n```", "docs: explain the cache key"],
    ["Commit message: perf: cache parsed trees", "perf: cache parsed trees"],
    ["Added some stuff", null],
    ["Sure! Here's a message:", null],
    ["feat: " + "x".repeat(80), null],
    ["wat: rename things", null],
    ["feat: <description>", null],
    ["fix:", null],
    ["", null],
  ])("%j → %j", (text, expected) => {
    expect(parseCommitSubject(text)).toBe(expected);
  });
});

describe("generateCommitMessage over a scripted server", () => {
  let server: ScriptedLlmServer;
  const llm = () =>
    createLlmClient({ baseUrl: server.baseUrl, apiKey: "k", redact: createSecretRedactor().redact, maxRetries: 0 });
  beforeEach(async () => {
    server = await startScriptedLlmServer();
  });
  afterEach(() => server.close());

  it("asks the model with a Conventional-Commits prompt, the request and the diff", async () => {
    server.push(commitReply('"fix: correct the off-by-one in pager"'));
    expect(
      await generateCommitMessage(llm(), { model: "gpt-4o-mini", diff: "diff --git a/x b/x", context: "fix pager" }),
    ).toBe("fix: correct the off-by-one in pager");
    const [system, user] = server.requests[0]!.body.messages;
    expect(server.requests[0]!.body.model).toBe("gpt-4o-mini");
    expect(system!.role).toBe("system");
    expect(system!.content).toMatch(/fix, feat, build, chore, ci, docs, style, refactor, perf, test/);
    expect(system!.content).toMatch(/72 characters/);
    expect(user!.content).toBe("# Request\nfix pager\n\n# Diff\ndiff --git a/x b/x");
  });

  it("truncates a huge diff", async () => {
    server.push("chore: bump everything");
    await generateCommitMessage(llm(), { model: "m", diff: "+x\n".repeat(50_000), context: "" });
    const user = server.requests[0]!.body.messages[1]!.content;
    expect(user.length).toBeLessThan(41_000);
    expect(user).toMatch(/\[diff truncated\]$/);
  });

  it("returns null on garbage, on a cut-off answer, and on an endpoint error", async () => {
    server.push(
      ...[
        "Sure! I changed a few things in the code.",
        { text: "feat: add", finishReason: "length" as const },
        { status: 401 },
      ].map(commitReply),
    );
    const input = { model: "m", diff: "d", context: "" };
    expect(await generateCommitMessage(llm(), input)).toBeNull();
    expect(await generateCommitMessage(llm(), input)).toBeNull();
    expect(await generateCommitMessage(llm(), input)).toBeNull();
    expect(server.requests).toHaveLength(3);
  });
});

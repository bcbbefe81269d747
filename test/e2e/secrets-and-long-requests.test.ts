import { generateKeyPairSync } from "node:crypto";
import { branchLog } from "../../testkit/seed-repo.js";
import { startE2E, type E2E } from "../helpers/e2e-harness.js";

const files = { "src/calc.py": "def add(a, b):\n    return a - b\n" };
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
const bot = "aider-bot[bot]";

describe("e2e: comments that fit, secrets that stay", () => {
  let e2e: E2E;
  afterEach(async () => {
    await e2e?.close();
  });

  it("a 60,000-character request is queued, runs, reports its outcome, and /aider retry finds it again", async () => {
    e2e = await startE2E({
      files,
      permissions: { ann: "write" },
      replies: ["I don't see the problem.", "Still no problem here."],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const tail = "THE-END-OF-THE-LONG-REQUEST";
    const command =
      `/aider --file src/calc.py make add add. ${"Details follow, at length. ".repeat(2300)}`.slice(
        0,
        60_000 - tail.length,
      ) + tail;
    const payload = e2e.commentPayload(pr, command, "ann");
    const trigger = payload.comment;
    // GitHub keeps the asking comment; retry reads a long request back from it.
    const now = new Date().toISOString();
    e2e.repo.comments.push({
      id: trigger.id,
      issueNumber: pr.number,
      body: command,
      user: "ann",
      createdAt: now,
      updatedAt: now,
    });
    await e2e.send("issue_comment", payload);
    await e2e.idle();
    expect(e2e.fake.state.calls.filter((c) => c.status === 422)).toEqual([]);
    expect(e2e.llm.requests[0]!.body.messages.at(-1)!.content).toContain(tail);
    const status = e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body;
    // The final status, not the "working on" one: its outcome line follows the run marker, visible.
    expect(status).not.toContain("is working on");
    expect(status.split("\n")[1]).toMatch(/^(🤷|😕)/);
    expect(status.length).toBeLessThan(65_536);

    const before = e2e.llm.requests.length;
    e2e.llm.push(fix, "fix: add");
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider retry", "ann"));
    await e2e.idle();
    const retried = e2e.llm.requests[before]!.body.messages.at(-1)!.content;
    expect(retried).toContain("make add add");
    expect(retried).toContain(tail);
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).toBe("fix: add");
  }, 120_000);

  it("no known secret or secret-shaped value reaches a comment, Check Run, PR body, commit message, model request or log", async () => {
    e2e = await startE2E({ files, permissions: { ann: "write" } });
    const keyLine = e2e.privateKey.trim().split("\n")[5]!;
    const otherPem = generateKeyPairSync("ec", {
      namedCurve: "P-256",
      privateKeyEncoding: { type: "sec1", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    }).privateKey;
    const shapes = {
      aws: "AKIA" + "QWERTYUIOPASDFGH",
      ghp: "ghp_" + "Zx9".repeat(12),
      sk: "sk-proj-" + "leakedKey_".repeat(3),
    };
    const known = { webhook: e2e.secret, model: "sk-e2e-model-key", keyLine };
    const all = [...Object.values(shapes), ...Object.values(known)];
    const echo = `Environment I saw: ${all.join(" ")}\n${otherPem}`;
    // The model echoes every secret in its explanation and in the commit message it writes.
    e2e.llm.push(`${echo}\n\n${fix}`, `fix: add ${shapes.ghp} ${known.webhook}`);
    const issue = e2e.issue({ title: "add is broken", body: "It subtracts.", user: "reporter" });
    await e2e.send(
      "issue_comment",
      e2e.commentPayload(
        issue,
        `/aider --file src/calc.py please fix add; my env: ${shapes.aws} ${shapes.sk} ${known.keyLine}`,
        "ann",
      ),
    );
    await e2e.idle();
    const pr = [...e2e.repo.issues.values()].find((i) => i.pull && i.user === bot);
    expect(pr).toBeDefined();
    const [commit] = await branchLog(e2e.fake, e2e.repo, pr!.pull!.head, 1);
    const surfaces: Record<string, string> = {
      "GitHub writes (comments, Check Runs, PR body)": JSON.stringify(e2e.fake.state.calls.map((c) => c.body ?? null)),
      comments: e2e.repo.comments.map((c) => c.body).join("\n"),
      "check runs": JSON.stringify(e2e.repo.checkRuns),
      "PR body": `${pr!.title}\n${pr!.body}`,
      "commit message": `${commit!.subject}\n${commit!.body}`,
      "model requests": JSON.stringify(e2e.llm.requests.map((r) => r.body)),
      log: e2e.logs(),
    };
    expect(surfaces["comments"]).toContain("[REDACTED]");
    for (const [where, text] of Object.entries(surfaces)) {
      for (const secret of [...all, ...e2e.tokens()]) {
        if (text.includes(secret)) throw new Error(`${where} contains the secret ${secret.slice(0, 12)}…`);
      }
      expect(text).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
    }
  }, 120_000);
});

import { branchLog, fileOnBranch } from "../../testkit/seed-repo.js";
import { startE2E, type E2E } from "../helpers/e2e-harness.js";

const files = {
  "src/fetch-client.ts":
    "export async function get(url: string): Promise<string> {\n  const res = await fetch(url);\n  return res.text();\n}\n",
  "README.md": "# widgets\n",
};
// No files were named, so the model first sees the repo map and asks for the files it needs.
const ask = "To add retry logic I need to edit this file:\n\nsrc/fetch-client.ts\n";
const edit =
  "I'll add a retry loop.\n\nsrc/fetch-client.ts\n```ts\n<<<<<<< SEARCH\n  const res = await fetch(url);\n=======\n  let res = await fetch(url);\n  if (!res.ok) res = await fetch(url);\n>>>>>>> REPLACE\n```\n";

describe("e2e: /aider on a pull request", () => {
  let e2e: E2E;
  afterEach(async () => {
    await e2e?.close();
  });

  it("pushes one commit to the PR branch with the right author and trailers, and reports in the status comment", async () => {
    e2e = await startE2E({
      files,
      permissions: { maintainer: "write", reader: "read" },
      replies: [ask, edit, "feat: retry failed fetches once"],
    });
    const pr = await e2e.pr({
      title: "Improve fetch",
      head: "improve-fetch",
      user: "maintainer",
      files: { "docs.md": "x\n" },
    });
    const res = await e2e.send(
      "issue_comment",
      e2e.commentPayload(pr, "/aider add retry logic to the fetch client", "maintainer"),
    );
    expect(res.status).toBeLessThan(300);
    await e2e.idle();
    if (process.env.E2E_DEBUG)
      console.log(
        e2e.logs().slice(-6000),
        JSON.stringify(
          e2e.fake.state.calls.map((c) => `${c.method} ${c.path} ${c.status}`),
          null,
          1,
        ),
        e2e.repo.comments,
      );
    const [head] = await branchLog(e2e.fake, e2e.repo, "improve-fetch", 1);
    expect(head!.subject).toBe("feat: retry failed fetches once");
    expect(head!.author).toMatch(/^aider-bot\[bot\] </);
    expect(head!.body).toContain("Co-authored-by: maintainer <");
    expect(head!.body).toContain(`Aider-Bot-Run: ${res.deliveryId}`);
    expect(await fileOnBranch(e2e.fake, e2e.repo, "improve-fetch", "src/fetch-client.ts")).toContain(
      "if (!res.ok) res = await fetch(url);",
    );
    const status = e2e.repo.comments.filter((c) => c.user === "aider-bot[bot]");
    expect(status).toHaveLength(1);
    expect(status[0]!.body).toContain("🚀 Pushed");
    expect(status[0]!.body).toContain("`src/fetch-client.ts` +2 −1");
    expect(e2e.repo.reactions.map((r) => r.content)).toEqual(["eyes", "rocket"]);
    expect(e2e.repo.checkRuns[0]).toMatchObject({ name: "aider-bot", status: "completed", conclusion: "success" });
    // The model saw the file and the PR text as delimited data.
    const first = e2e.llm.requests[0]!.body.messages.map((m) => m.content).join("\n");
    expect(first).toContain("src/fetch-client.ts:"); // the repo map
    const sent = e2e.llm.requests[1]!.body.messages.map((m) => m.content).join("\n");
    expect(sent).toContain("export async function get(url: string)");
    expect(sent).toContain("add retry logic to the fetch client");
    // No token anywhere it must not be.
    for (const token of e2e.tokens()) {
      expect(e2e.logs()).not.toContain(token);
      for (const c of e2e.repo.comments) expect(c.body).not.toContain(token);
      for (const r of e2e.fake.gitRequests) expect(r.url).not.toContain(token);
    }
    expect(e2e.logs()).not.toContain("sk-e2e-model-key");
    // The checkout was made from the repository's mirror in the cache, not by a plain clone after a failure.
    expect(e2e.logs()).not.toContain("cloned without the repository's mirror");
    // LOG_FORMAT=json (set by the harness) gives one JSON object per log line.
    expect(e2e.logs()).toMatch(/^\{"level":\d+,.*"msg":"aider-bot listening"/m);
  });
});

import type { FakeIssue } from "../../testkit/fake-github-state.js";
import type { IssuesEditedEvent } from "@octokit/webhooks-types";
import { examplePayload, exampleUser, startE2E, type E2E } from "../helpers/e2e-harness.js";
import { waitUntil } from "../helpers/wait-until.js";

const bot = "aider-bot[bot]";
// Two schedules that do not fire during the test (1 January): only "Run now" starts them.
const config = [
  "schedules:",
  '  - cron: "0 6 1 1 *"',
  "    timezone: Europe/Berlin",
  "    message: add a CHANGELOG entry for this year",
  "    files: [CHANGELOG.md]",
  '  - cron: "30 7 1 1 *"',
  "    message: tidy the README",
  "    files: [README.md]",
  "",
].join("\n");
const edit =
  "CHANGELOG.md\n```markdown\n<<<<<<< SEARCH\n# Changelog\n=======\n# Changelog\n\n- Yearly maintenance.\n>>>>>>> REPLACE\n```\n";

describe("e2e: the schedules dashboard", () => {
  let e2e: E2E;
  afterAll(async () => {
    await e2e?.close();
  });

  it("keeps one dashboard issue; a ticked Run now starts that schedule once, a redelivered edit starts nothing", async () => {
    e2e = await startE2E({
      files: { "CHANGELOG.md": "# Changelog\n", "README.md": "# widgets\n", ".github/aider.yml": config },
      permissions: { maintainer: "write", reader: "read" },
      replies: [edit, "docs: add this year's changelog entry"],
    });
    const dashboards = () =>
      [...e2e.repo.issues.values()].filter((i) => !i.pull && i.user === bot && i.title === "aider-bot dashboard");
    await waitUntil(
      () => dashboards().length === 1 && dashboards()[0]!.body.includes("Run now"),
      () => `no dashboard issue:\n${e2e.logs().slice(-3000)}`,
    );
    const dash = dashboards()[0]!;
    expect(dash.body).toContain("`0 6 1 1 *` | Europe/Berlin");
    expect(dash.body).toContain("`30 7 1 1 *` | UTC");
    expect(dash.body).toContain("add a CHANGELOG entry for this year");
    expect(dash.body.match(/- \[ \] Run now/g)).toHaveLength(2);
    expect(dash.body).toMatch(/\| 20\d\d-01-01 05:00 UTC \| never \|/); // 06:00 in Berlin is 05:00 UTC in winter

    const editPayload = (before: string, after: string, sender: string): IssuesEditedEvent => {
      const base = e2e.commentPayload(dash, "", sender);
      const p = examplePayload("issues", "edited");
      return {
        ...p,
        repository: base.repository,
        installation: base.installation,
        sender: base.sender,
        issue: { ...p.issue, ...base.issue, body: after, user: exampleUser(bot, { type: "Bot" }) },
        changes: { body: { from: before } },
      };
    };
    const tick = (issue: FakeIssue, nth: number) => {
      let i = 0;
      return issue.body.replace(/- \[ \] Run now/g, (m) => (i++ === nth ? "- [x] Run now" : m));
    };

    // Someone with only read permission ticks: refused, the box cleared, nothing started.
    const before = dash.body;
    dash.body = tick(dash, 1);
    await e2e.send("issues", editPayload(before, dash.body, "reader"));
    await e2e.idle();
    expect(dash.body).not.toContain("- [x]");
    expect(
      e2e.repo.comments.some((c) => c.issueNumber === dash.number && c.body.includes("needs `write` permission")),
    ).toBe(true);
    expect(e2e.llm.requests).toHaveLength(0);

    // A maintainer ticks the first schedule's box.
    const untouched = dash.body;
    dash.body = tick(dash, 0);
    const ticked = dash.body;
    const payload = editPayload(untouched, ticked, "maintainer");
    const first = await e2e.send("issues", payload);
    expect(first.status).toBeLessThan(300);
    const findPr = () => [...e2e.repo.issues.values()].find((i) => i.pull);
    await waitUntil(
      () => findPr() !== undefined,
      () => `"Run now" opened no PR:\n${e2e.logs().slice(-4000)}`,
    );
    await e2e.idle();
    const pr = findPr()!;
    const tracking = [...e2e.repo.issues.values()].filter((i) => !i.pull && i.title.startsWith("aider-bot schedule:"));
    expect(tracking.map((i) => i.title)).toEqual(["aider-bot schedule: add a CHANGELOG entry for this year"]);
    // The box is cleared and the last run names its pull request and who asked.
    await waitUntil(
      () => dash.body.includes(`#${pr.number}`),
      () => `the dashboard never showed #${pr.number}:\n${dash.body}`,
    );
    expect(dash.body).not.toContain("- [x]");
    expect(dash.body).toContain("run now by @maintainer");
    const calls = e2e.llm.requests.length;

    // GitHub redelivers the same edit (same delivery id), and the same edit arrives again under a new id.
    const again = await e2e.send("issues", payload, { deliveryId: first.deliveryId });
    expect(again.status).toBeLessThan(300);
    await e2e.send("issues", payload);
    await e2e.idle();
    expect(e2e.llm.requests).toHaveLength(calls);
    expect([...e2e.repo.issues.values()].filter((i) => i.pull)).toHaveLength(1);
    expect(
      [...e2e.repo.issues.values()].filter((i) => !i.pull && i.title.startsWith("aider-bot schedule:")),
    ).toHaveLength(1);
    expect(dashboards()).toHaveLength(1);
  });
});

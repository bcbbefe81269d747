import { fileOnBranch } from "../../testkit/seed-repo.js";
import { startE2E, type E2E } from "../helpers/e2e-harness.js";
import { waitUntil } from "../helpers/wait-until.js";

const bot = "aider-bot[bot]";

describe("e2e: scheduled runs from .github/aider.yml", () => {
  let e2e: E2E;
  afterEach(async () => {
    await e2e?.close();
  });

  it("arms the cron entry, opens a tracking issue and a PR that fixes it", async () => {
    const config =
      'schedules:\n  - cron: "* * * * * *"\n    message: add a CHANGELOG entry for this week\n    files: [CHANGELOG.md]\n';
    const edit =
      "CHANGELOG.md\n```markdown\n<<<<<<< SEARCH\n# Changelog\n=======\n# Changelog\n\n- Weekly maintenance.\n>>>>>>> REPLACE\n```\n";
    e2e = await startE2E({
      files: { "CHANGELOG.md": "# Changelog\n", ".github/aider.yml": config },
      permissions: {},
      replies: [edit, "docs: add a weekly changelog entry"],
      env: { AIDER_BOT_SCHEDULE_SYNC_MS: "60000" },
    });
    const findPr = () => [...e2e.repo.issues.values()].find((i) => i.pull);
    await waitUntil(
      () => findPr() !== undefined,
      () => `no PR from the schedule:\n${e2e.logs().slice(-3000)}`,
    );
    const pr = findPr()!;
    // The repository's schedules dashboard is an issue of the bot's too: the tracking issue is the other one.
    const tracking = [...e2e.repo.issues.values()].find(
      (i) => !i.pull && i.user === bot && i.title.startsWith("aider-bot schedule:"),
    )!;
    expect(tracking.title).toBe("aider-bot schedule: add a CHANGELOG entry for this week");
    expect(pr.body).toContain(`Fixes #${tracking.number}`);
    expect(pr.pull!.requestedReviewers).toEqual([]);
    expect(await fileOnBranch(e2e.fake, e2e.repo, pr.pull!.head, "CHANGELOG.md")).toContain("- Weekly maintenance.");
    const reported = () =>
      e2e.repo.comments.some((c) => c.issueNumber === tracking.number && c.body.includes(`Opened #${pr.number}`));
    await waitUntil(
      reported,
      () => `the tracking issue never got "Opened #${pr.number}":\n${JSON.stringify(e2e.repo.comments, null, 1)}`,
    );
    expect(e2e.logs()).toContain("schedule armed");
  });
});

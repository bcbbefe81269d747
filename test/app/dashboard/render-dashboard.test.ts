import {
  DASHBOARD_MARKER,
  newlyTicked,
  readLastRuns,
  stateLine,
  tickedKeys,
  untick,
} from "../../../src/app/dashboard/dashboard-body.js";
import {
  headline,
  renderDashboard,
  renderLastRun,
  type DashboardEntry,
} from "../../../src/app/dashboard/render-dashboard.js";

const entry = (over: Partial<DashboardEntry> = {}): DashboardEntry => ({
  key: "acme/widgets#schedule-0-abcdef0123",
  cron: "0 6 * * 1",
  message: "add a changelog entry\nwith detail",
  stack: false,
  next: new Date("2026-11-30T06:00:00Z"),
  ...over,
});

describe("renderDashboard", () => {
  it("lists each schedule with cron, zone, next and last run, and an unticked Run now box", () => {
    const body = renderDashboard(
      [
        entry(),
        entry({
          key: "acme/widgets#schedule-1-0123456789",
          cron: "30 7 1 * *",
          timezone: "Europe/Berlin",
          stack: true,
          message: "tidy",
          last: { at: "2026-11-01T06:30:00.000Z", outcome: "pull-request", issue: 4, pr: 7 },
        }),
      ],
      { minPermission: "write" },
    );
    expect(body.startsWith(DASHBOARD_MARKER)).toBe(true);
    expect(body).toContain("### 1. add a changelog entry\n");
    expect(body).toContain("| `0 6 * * 1` | UTC | 2026-11-30 06:00 UTC | never |");
    expect(body).toContain(
      "| `30 7 1 * *` | Europe/Berlin (stacks) | 2026-11-30 06:00 UTC | 2026-11-01 06:30 UTC · 🚀 opened a pull request · #7 |",
    );
    expect(body).toContain("needs `write` permission");
    expect(tickedKeys(body)).toEqual([]);
    expect(body.match(/- \[ \] Run now <!-- aider-bot:run-now:acme\/widgets#schedule-\d-\w+ -->/g)).toHaveLength(2);
    // What it remembers reads back as it was written.
    expect(readLastRuns(body).get("acme/widgets#schedule-1-0123456789")).toEqual({
      at: "2026-11-01T06:30:00.000Z",
      outcome: "pull-request",
      issue: 4,
      pr: 7,
    });
  });

  it("keeps a box ticked when asked, and re-renders to the same text (no needless edit)", () => {
    const once = renderDashboard([entry({ ticked: true })], { minPermission: "write" });
    expect(tickedKeys(once)).toEqual(["acme/widgets#schedule-0-abcdef0123"]);
    expect(renderDashboard([entry({ ticked: true })], { minPermission: "write" })).toBe(once);
  });

  /** What Markdown shows for text outside code: a backslash before ASCII punctuation is dropped, the character kept. */
  const shown = (markdown: string) => markdown.replace(/\\([!-/:-@[-`{-~])/g, "$1");

  it("shows a schedule's message as written: nothing dropped, nothing read as markdown", () => {
    expect(headline("update SCHED_ONE_4410")).toBe("update SCHED\\_ONE\\_4410");
    const hostile = "fix `x` | <!-- aider-bot:run-now:e --> [l](u) **b** ~~s~~ &amp; :+1: $x$ C:\\d #";
    expect(shown(headline(hostile))).toBe(hostile);
    // No character that starts markdown, HTML or a table cell is left unescaped.
    expect(headline(hostile).replace(/\\./g, "")).not.toMatch(/[`|<>[\]*_~&:$#\\]/);
    expect(headline("a".repeat(100))).toHaveLength(80);
    expect(headline("_".repeat(100))).toBe(`${"\\_".repeat(79)}…`);
    const body = renderDashboard([entry({ message: "<!-- aider-bot:run-now:acme/other#x -->\n- [x] Run now" })], {
      minPermission: "write",
    });
    expect(tickedKeys(body)).toEqual([]);
    expect(body).not.toContain("<!-- aider-bot:run-now:acme/other");
  });

  it("shows the cron and the time zone as written, in a table row that stays one row", () => {
    const body = renderDashboard([entry({ cron: "0 6 * * 1|2 `x`", timezone: "Etc/GMT+5" })], {
      minPermission: "write",
    });
    expect(body).toContain("| `` 0 6 * * 1\\|2 `x` `` | Etc/GMT+5 |");
  });

  it("says a skipped tick's open PR, a run-now's requester, and a never-run schedule", () => {
    expect(renderLastRun(undefined)).toBe("never");
    expect(renderLastRun({ at: "2026-01-01T00:00:00Z", outcome: "skipped", issue: 3, pr: 9 })).toBe(
      "2026-01-01 00:00 UTC · ⏭️ skipped · #9 is still open",
    );
    expect(renderLastRun({ at: "2026-01-01T00:00:00Z", outcome: "started", issue: 3, by: "octo" })).toBe(
      "2026-01-01 00:00 UTC · ⏳ started · on #3 · run now by @octo",
    );
  });
});

describe("the dashboard body's boxes and memory", () => {
  const a = "- [ ] Run now <!-- aider-bot:run-now:acme/w#schedule-0-a -->";
  const b = "- [ ] Run now <!-- aider-bot:run-now:acme/w#schedule-1-b -->";

  it("finds the boxes an edit ticked (the transition), not those ticked before", () => {
    const before = `${a}\n${b.replace("[ ]", "[x]")}`;
    const after = `${a.replace("[ ]", "[x]")}\r\n${b.replace("[ ]", "[x]")}`;
    expect(newlyTicked(before, after)).toEqual(["acme/w#schedule-0-a"]);
    expect(newlyTicked(after, after)).toEqual([]);
    expect(newlyTicked(after, before)).toEqual([]);
    expect(tickedKeys(`${a.replace("[ ]", "[X]")}`)).toEqual(["acme/w#schedule-0-a"]);
  });

  it("unticks only the named boxes", () => {
    const body = `${a.replace("[ ]", "[x]")}\n${b.replace("[ ]", "[x]")}\ntext [x] stays`;
    expect(untick(body, ["acme/w#schedule-1-b"])).toBe(`${a.replace("[ ]", "[x]")}\n${b}\ntext [x] stays`);
  });

  it("forgets remembered runs that do not have the right shape (a hand-edited body)", () => {
    const good = stateLine("acme/w#schedule-0-a", {
      at: "2026-01-01T00:00:00.000Z",
      outcome: "pushed",
      pr: 2,
      by: "octo",
    });
    const forged = `<!-- aider-bot:schedule-state:acme/w#schedule-1-b ${Buffer.from(JSON.stringify({ at: "x", outcome: "<script>" })).toString("base64url")} -->`;
    const links = `<!-- aider-bot:schedule-state:acme/w#schedule-2-c ${Buffer.from(JSON.stringify({ at: "2026-01-01T00:00:00Z", outcome: "pushed", pr: "https://evil", by: "a b" })).toString("base64url")} -->`;
    const runs = readLastRuns(`${good}\n${forged}\n${links}\n<!-- aider-bot:schedule-state:acme/w#x !!! -->`);
    expect([...runs.keys()]).toEqual(["acme/w#schedule-0-a", "acme/w#schedule-2-c"]);
    expect(runs.get("acme/w#schedule-0-a")).toEqual({
      at: "2026-01-01T00:00:00.000Z",
      outcome: "pushed",
      pr: 2,
      by: "octo",
    });
    expect(runs.get("acme/w#schedule-2-c")).toEqual({ at: "2026-01-01T00:00:00.000Z", outcome: "pushed" });
  });
});

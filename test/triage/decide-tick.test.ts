import { decideTick } from "../../src/triage/decide-tick.js";
import { nextRun } from "../../src/app/dashboard/sync-dashboard.js";

describe("decideTick", () => {
  it.each([
    [{ stack: false, openPr: null }, { fire: true }],
    [
      { stack: false, openPr: 12 },
      { fire: false, pr: 12 },
    ],
    [{ stack: true, openPr: 12 }, { fire: true }],
    [{ stack: true, openPr: null }, { fire: true }],
  ])("%j → %j", (input, expected) => {
    expect(decideTick(input)).toEqual(expected);
  });
});

describe("nextRun", () => {
  const now = new Date("2026-11-27T12:00:00Z");
  it("follows the schedule's time zone (default UTC)", () => {
    expect(nextRun({ cron: "0 6 * * *" }, now)?.toISOString()).toBe("2026-11-28T06:00:00.000Z");
    expect(nextRun({ cron: "0 6 * * *", timezone: "Europe/Berlin" }, now)?.toISOString()).toBe(
      "2026-11-28T05:00:00.000Z",
    );
    expect(nextRun({ cron: "0 6 * * *", timezone: "America/New_York" }, now)?.toISOString()).toBe(
      "2026-11-28T11:00:00.000Z",
    );
  });
});

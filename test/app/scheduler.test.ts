import { jest } from "@jest/globals";
import pino from "pino";
import { parseRepoConfig, type RepoConfig } from "../../src/config/repo-config.js";
import { createScheduler } from "../../src/app/scheduler.js";
import type { ScheduleTarget } from "../../src/triage/schedule-key.js";

const config = (schedules: unknown[]): RepoConfig => {
  const r = parseRepoConfig({ schedules });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
};
const target = (schedules: unknown[]): ScheduleTarget => ({
  installationId: 1,
  owner: "acme",
  repo: "w",
  defaultBranch: "main",
  cloneUrl: "x",
  config: config(schedules),
});

describe("createScheduler", () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it("arms new entries, keeps unchanged ones and stops removed or edited ones", async () => {
    let targets = [
      target([
        { cron: "0 6 * * 1", message: "weekly" },
        { cron: "0 0 1 * *", message: "monthly" },
      ]),
    ];
    const s = createScheduler({
      listTargets: async () => targets,
      fire: async () => undefined,
      log: pino({ level: "silent" }),
    });
    await s.sync();
    const first = s.armed();
    expect(first).toHaveLength(2);
    targets = [
      target([
        { cron: "0 6 * * 1", message: "weekly" },
        { cron: "0 0 1 * *", message: "monthly, edited" },
      ]),
    ];
    await s.sync();
    expect(s.armed()).toHaveLength(2);
    expect(s.armed()).toContain(first[0]);
    expect(s.armed()).not.toContain(first[1]);
    targets = [];
    await s.sync();
    expect(s.armed()).toEqual([]);
    s.stop();
  });

  it("fires on the cron and skips a tick while the previous run is still going", async () => {
    // Half a second past a whole second: each advance below crosses exactly the ticks it names, wherever "now" is.
    jest.useFakeTimers({ now: new Date("2026-01-05T10:00:00.500Z") });
    let fired = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s = createScheduler({
      listTargets: async () => [target([{ cron: "* * * * * *", message: "every second" }])],
      fire: async () => {
        fired++;
        await gate;
      },
      log: pino({ level: "silent" }),
    });
    await s.sync();
    // Fake clocks: the first tick comes within a second, and two more seconds of ticks pass while it still runs.
    await jest.advanceTimersByTimeAsync(1100);
    expect(fired).toBe(1);
    await jest.advanceTimersByTimeAsync(2200);
    expect(fired).toBe(1);
    release();
    await jest.advanceTimersByTimeAsync(1100);
    expect(fired).toBe(2);
    s.stop();
  });

  it("with the job engine, arms each entry there once (the engine fires each tick once across replicas) and disarms removed ones", async () => {
    const calls: string[] = [];
    let targets = [target([{ cron: "0 6 * * 1", message: "weekly" }])];
    const fired: string[] = [];
    const s = createScheduler({
      listTargets: async () => targets,
      fire: async (_t, _s, key) => void fired.push(key),
      log: pino({ level: "silent" }),
      engine: {
        arm: async (key, _t, schedule) => void calls.push(`arm ${key} ${schedule.cron}`),
        disarm: async (key) => void calls.push(`disarm ${key}`),
      },
    });
    await s.sync();
    await s.sync();
    const [key] = s.armed();
    expect(calls).toEqual([`arm ${key} 0 6 * * 1`]);
    targets = [];
    await s.sync();
    expect(calls).toEqual([`arm ${key} 0 6 * * 1`, `disarm ${key}`]);
    expect(s.armed()).toEqual([]);
    expect(fired).toEqual([]);
  });
});

import pino from "pino";
import {
  intakeDispatch,
  intakeSchedule,
  withoutForkCommands,
  type EngineDeps,
} from "../../src/action/action-engine.js";
import type { GitHubClient } from "../../src/github/github-client.js";
import { prTarget, runRequest, runSettings } from "../../testkit/builders/run-fixtures.js";

/** A GitHub client answering the few routes the intake reads; every other request fails the test. */
function fakeApi(o: { permission: string; pulls: unknown[]; sha?: string }) {
  const calls: string[] = [];
  const asked: string[] = [];
  const api = {
    request: async (route: string) => {
      calls.push(route);
      throw new Error(`unexpected request ${route}`);
    },
    rest: {
      repos: {
        getCollaboratorPermissionLevel: async (a: { username: string }) => {
          asked.push(a.username);
          return { data: { permission: o.permission, role_name: o.permission, user: null } };
        },
        getCommit: async () => {
          calls.push("GET /repos/{owner}/{repo}/commits/{ref}");
          return { data: { sha: o.sha ?? "abc123" } };
        },
      },
      pulls: {
        list: async () => {
          calls.push("GET /repos/{owner}/{repo}/pulls");
          return { data: o.pulls };
        },
      },
    },
    paginate: async () => [],
  };
  return { api: api as unknown as GitHubClient, calls, asked };
}

const engine = (api: GitHubClient, config: unknown): EngineDeps => ({
  api,
  token: "ghs_token",
  bot: { login: "github-actions[bot]", email: "41898282+github-actions[bot]@users.noreply.github.com" },
  defaults: { model: "main-model" },
  loadConfig: async () => config,
  logger: pino({ level: "silent" }),
});

const dispatch = {
  message: "fix the flaky test",
  owner: "acme",
  repo: "widgets",
  cloneUrl: "https://github.com/acme/widgets.git",
  defaultBranch: "main",
  sender: { login: "maintainer", type: "User", id: 7 },
  jobId: "dispatch:acme/widgets@1.1",
};

describe("the Action's intake", () => {
  it("a dispatch on a feature branch without a pull request runs on the branch, with no thread for feedback", async () => {
    const { api } = fakeApi({ permission: "write", pulls: [], sha: "feedbeef" });
    const intake = await intakeDispatch({ ...dispatch, branch: "feature" }, engine(api, { max_reflections: 1 }));
    expect(intake).toMatchObject({
      kind: "run",
      feedback: null,
      request: { settings: { model: "main-model", maxReflections: 1 } },
    });
    // The branch is the target: no pull request number is made up for it.
    expect(intake.kind === "run" && intake.request.target).toEqual({
      kind: "branch",
      headRef: "feature",
      headSha: "feedbeef",
      headCloneUrl: dispatch.cloneUrl,
      isFork: false,
    });
  });

  it("never runs on the default branch without a pull request, and says what to do instead", async () => {
    const { api } = fakeApi({ permission: "admin", pulls: [] });
    const intake = await intakeDispatch({ ...dispatch, branch: "main" }, engine(api, null));
    expect(intake).toMatchObject({ kind: "done", outcome: "refused" });
    expect(intake.kind === "done" && intake.reason).toMatch(/never pushes to the default branch/);
  });

  it("a dispatcher without write permission is refused before anything is read or written", async () => {
    const { api, calls } = fakeApi({ permission: "read", pulls: [] });
    const intake = await intakeDispatch({ ...dispatch, branch: "feature" }, engine(api, null));
    expect(intake).toMatchObject({ kind: "done", outcome: "unauthorized" });
    expect(calls).toEqual([]);
  });

  it("a dispatch by the bot's own login is ignored by the App's gate, without asking for its permission", async () => {
    const { api, calls, asked } = fakeApi({ permission: "admin", pulls: [] });
    const self = { login: "GitHub-Actions[bot]", type: "User" };
    const intake = await intakeDispatch({ ...dispatch, sender: self, branch: "feature" }, engine(api, null));
    expect(intake).toMatchObject({ kind: "done", outcome: "ignored", reason: "the app ignores its own comments" });
    expect(asked).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("an invalid config is refused with the problems named", async () => {
    const { api } = fakeApi({ permission: "write", pulls: [] });
    const intake = await intakeDispatch({ ...dispatch, branch: "feature" }, engine(api, { max_reflections: 99 }));
    expect(intake).toMatchObject({ kind: "done", outcome: "refused" });
    expect(intake.kind === "done" && intake.reason).toMatch(/max_reflections/);
  });

  it("a schedule event whose cron no entry has is ignored, naming the cron", async () => {
    const { api } = fakeApi({ permission: "write", pulls: [] });
    const config = { schedules: [{ cron: "0 3 * * 1", message: "update dependencies" }] };
    const intakes = await intakeSchedule(
      {
        cron: "0 4 * * *",
        owner: "acme",
        repo: "widgets",
        cloneUrl: dispatch.cloneUrl,
        defaultBranch: "main",
        now: new Date(),
      },
      engine(api, config),
    );
    expect(intakes).toEqual([
      { kind: "done", outcome: "ignored", reason: 'no entry of `schedules` in the config has cron "0 4 * * *"' },
    ]);
  });
});

describe("withoutForkCommands", () => {
  const base = runRequest({
    target: prTarget({ number: 3, isFork: true }),
    settings: runSettings({
      setup: ["npm ci"],
      lint: ["eslint"],
      test: "jest",
      tests: ["jest"],
      checks: "auto",
      autoTest: true,
    }),
  });

  it("a fork's pull request keeps its request but none of its setup, lint or test commands", () => {
    const out = withoutForkCommands(base);
    expect(out.settings).toMatchObject({ setup: [], lint: [], tests: [], checks: "off", autoTest: false });
    expect(out.settings.test).toBeUndefined();
    expect(out.target).toBe(base.target);
  });

  it("a same-repository pull request is left as it is", () => {
    const same = runRequest({ ...base, target: prTarget({ number: 3, isFork: false }) });
    expect(withoutForkCommands(same)).toBe(same);
  });
});

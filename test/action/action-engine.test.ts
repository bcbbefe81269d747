import pino from "pino";
import {
  intakeDispatch,
  intakeSchedule,
  withoutForkCommands,
  type EngineDeps,
} from "../../src/action/action-engine.js";
import nock from "nock";
import type { GitHubClient } from "../../src/github/github-client.js";
import { GITHUB_API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";
import { prTarget, runRequest, runSettings } from "../../testkit/builders/run-fixtures.js";

const REPO = "/repos/acme/widgets";

/**
 * GitHub as nock answers it, through a real client: the dispatcher's permission, and (when given) the branch's open
 * pull requests and its commit. A request nothing answers is recorded in `unanswered` (and fails at the client).
 */
function github(o: { permission: string; pulls?: unknown[]; sha?: string }) {
  nock(GITHUB_API)
    .get(`${REPO}/collaborators/maintainer/permission`)
    .reply(200, { permission: o.permission, role_name: o.permission, user: null });
  if (o.pulls) nock(GITHUB_API).get(`${REPO}/pulls`).query(true).reply(200, o.pulls);
  if (o.sha) nock(GITHUB_API).get(`${REPO}/commits/feature`).reply(200, { sha: o.sha });
  return testOctokit() as unknown as GitHubClient;
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
  useStrictNock(nock);
  const unanswered: string[] = [];
  const record = (req: { method: string; path: string }) => unanswered.push(`${req.method} ${req.path}`);
  beforeEach(() => {
    unanswered.length = 0;
    nock.emitter.on("no match", record);
  });
  afterEach(() => {
    nock.emitter.removeListener("no match", record);
  });

  it("a dispatch on a feature branch without a pull request runs on the branch, with no thread for feedback", async () => {
    const api = github({ permission: "write", pulls: [], sha: "feedbeef" });
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
    const api = github({ permission: "admin", pulls: [] });
    const intake = await intakeDispatch({ ...dispatch, branch: "main" }, engine(api, null));
    expect(intake).toMatchObject({ kind: "done", outcome: "refused" });
    expect(intake.kind === "done" && intake.reason).toMatch(/never pushes to the default branch/);
  });

  it("a dispatcher without write permission is refused before anything is read or written", async () => {
    const api = github({ permission: "read" });
    const intake = await intakeDispatch({ ...dispatch, branch: "feature" }, engine(api, null));
    expect(intake).toMatchObject({ kind: "done", outcome: "unauthorized" });
    expect(unanswered).toEqual([]);
  });

  it("a dispatch by the bot's own login is ignored by the App's gate, without asking for its permission", async () => {
    // No permission is answered here: a request of any kind shows up in `unanswered`.
    const api = testOctokit() as unknown as GitHubClient;
    const self = { login: "GitHub-Actions[bot]", type: "User" };
    const intake = await intakeDispatch({ ...dispatch, sender: self, branch: "feature" }, engine(api, null));
    expect(intake).toMatchObject({ kind: "done", outcome: "ignored", reason: "the app ignores its own comments" });
    expect(unanswered).toEqual([]);
  });

  it("an invalid config is refused with the problems named", async () => {
    // Refused as the config is read, before GitHub is asked anything.
    const api = testOctokit() as unknown as GitHubClient;
    const intake = await intakeDispatch({ ...dispatch, branch: "feature" }, engine(api, { max_reflections: 99 }));
    expect(intake).toMatchObject({ kind: "done", outcome: "refused" });
    expect(unanswered).toEqual([]);
    expect(intake.kind === "done" && intake.reason).toMatch(/max_reflections/);
  });

  it("a schedule event whose cron no entry has is ignored, naming the cron", async () => {
    const api = testOctokit() as unknown as GitHubClient;
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
    expect(unanswered).toEqual([]);
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

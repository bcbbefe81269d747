import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { isCommitMessageRequest } from "../../testkit/scripted-llm-server.js";
import { startE2EApp, type E2EApp } from "../helpers/e2e-harness.js";
import { describeWith } from "../helpers/needs.js";
import { ensureTestImage, TEST_IMAGE } from "../helpers/podman-test-image.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";
import { waitUntil } from "../helpers/wait-until.js";

/**
 * Container mode through the real built app and a real Podman: a Python repository's test command runs
 * in the image its `.github/aider.yml` names (the host's sandbox has no `python`), and an image that cannot be pulled
 * ends in a status comment that says what failed and what to do.
 */
const bot = "aider-bot[bot]";
const fix = "calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
const files = (image: string) => ({
  "calc.py": "def add(a, b):\n    return a - b\n",
  ".github/aider.yml": `test: python -c "import calc; assert calc.add(1, 2) == 3; print('TESTS-PASSED')"\nsandbox:\n  image: ${image}\n`,
});
const containersOf = (dir: string) =>
  spawnSync("podman", ["ps", "-a", "--format", "{{.Names}} {{.Mounts}}"], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((l) => l.includes(dir));

describeWith("podman", "e2e container mode (real podman)", () => {
  let app: E2EApp;
  beforeAll(async () => {
    ensureTestImage();
    app = await startE2EApp({ env: { AIDER_BOT_SANDBOX: "container" } });
  }, TEST_TIMEOUT_MS);
  afterAll(() => app?.close());

  it("runs the repository's test in its image, says so in the status and /healthz, and leaves no container", async () => {
    const e2e = await app.scenario({ files: files(TEST_IMAGE), permissions: { ann: "write" }, replies: [fix] });
    const issue = e2e.issue({ title: "add is broken", body: "It subtracts.", user: "reporter" });
    await e2e.send("issue_comment", e2e.commentPayload(issue, "/aider --file calc.py fix add", "ann"));
    await e2e.idle();
    const status = e2e.repo.comments.filter((c) => c.user === bot).at(-1)?.body ?? "";
    expect(status).toContain(
      `Repository commands ran in a container of \`${TEST_IMAGE}\` (image from \`sandbox.image\` in .github/aider.yml)`,
    );
    expect(status).not.toMatch(/not run|still fails/);
    expect([...e2e.repo.issues.values()].some((i) => i.pull && i.user === bot)).toBe(true);
    const health = (await (await fetch(new URL("/healthz", e2e.webhookUrl))).json()) as { sandbox: unknown };
    expect(health.sandbox).toEqual({
      configured: "container",
      mode: "container",
      engine: "podman",
      defaultImage: "docker.io/library/buildpack-deps:bookworm",
      network: "registries",
    });
    expect(status).toContain("Network: **registries**");
    expect(containersOf(e2e.home)).toEqual([]);
  });

  it("a test that fails the same way on the base (run in a container of its own) is not reflected: 1 model request, not 3", async () => {
    const test = "echo 'go: go.mod file not found in current directory or any parent directory' >&2; exit 1";
    const e2e = await app.scenario({
      files: {
        "calc.py": "def add(a, b):\n    return a - b\n",
        ".github/aider.yml": `test: ${JSON.stringify(test)}\nmax_reflections: 2\nsandbox:\n  image: ${TEST_IMAGE}\n`,
      },
      permissions: { ann: "write" },
      // One answer: a reflection would find no reply, and fail the run.
      replies: [fix],
    });
    const issue = e2e.issue({ title: "add is broken", body: "It subtracts.", user: "reporter" });
    await e2e.send("issue_comment", e2e.commentPayload(issue, "/aider --file calc.py fix add", "ann"));
    await e2e.idle();
    const coder = e2e.llm.requests.filter((r) => !isCommitMessageRequest(r.body));
    expect(coder).toHaveLength(1);
    const status = e2e.repo.comments.filter((c) => c.user === bot).at(-1)?.body ?? "";
    expect(status).toContain(
      "fails on the default branch too (go: go.mod file not found in current directory or any parent directory): not caused by this change",
    );
    expect(status).toContain(`Repository commands ran in a container of \`${TEST_IMAGE}\``);
    expect(status).not.toContain("still fails");
    expect(e2e.logs()).not.toContain("the base's checks could not run");
    expect(containersOf(e2e.home)).toEqual([]);
  });

  it("a base run still under way when the job ends is stopped with it (after its grace): its container removed, the checkout removed, nothing cached or logged", async () => {
    // The base's command marks its checkout (a folder of the job's, mounted into its container) and sleeps until
    // killed. The model answers once that mark is there (the base runs while the model writes: it starts nothing
    // while the change's checks run); the change (after the fix) passes. The job ends while the base's command runs:
    // it may finish within the grace, and is killed after it.
    const test = `if grep -q 'a + b' calc.py; then true; else touch base-started; exec sleep 3600; fi`;
    let home = "";
    const baseStarted = () =>
      !!home &&
      readdirSync(home).some(
        (n) => n.startsWith("aider-bot-job-") && existsSync(path.join(home, n, "base", "base-started")),
      );
    const e2e = await app.scenario({
      files: {
        "calc.py": "def add(a, b):\n    return a - b\n",
        ".github/aider.yml": `test: ${JSON.stringify(test)}\nsandbox:\n  image: ${TEST_IMAGE}\n`,
      },
      permissions: { ann: "write" },
      replies: [{ after: waitUntil(baseStarted, "the base's command did not start"), reply: fix }],
    });
    home = e2e.home;
    const issue = e2e.issue({ title: "add is broken", body: "It subtracts.", user: "reporter" });
    await e2e.send("issue_comment", e2e.commentPayload(issue, "/aider --file calc.py fix add", "ann"));
    await e2e.idle();
    const status = e2e.repo.comments.filter((c) => c.user === bot).at(-1)?.body ?? "";
    expect(status).not.toMatch(/not run|still fails/);
    expect([...e2e.repo.issues.values()].some((i) => i.pull && i.user === bot)).toBe(true);
    expect(containersOf(e2e.home)).toEqual([]);
    expect(readdirSync(e2e.home).filter((n) => n.startsWith("aider-bot-job-"))).toEqual([]);
    // Nothing finished on the base: no result of it is kept (a killed command says nothing about the base).
    expect(existsSync(path.join(e2e.home, "cache", "baseline", e2e.repo.owner, e2e.repo.name))).toBe(false);
    expect(e2e.logs()).not.toMatch(/could not remove the job's checkout|the base's checks could not run|ENOTEMPTY/);
  });

  it("an image that cannot be pulled ends in a status comment that says what failed and what to do", async () => {
    const e2e = await app.scenario({
      files: files("localhost/aider-bot-no-such-image:1"),
      permissions: { ann: "write" },
      replies: [fix],
    });
    const issue = e2e.issue({ title: "add is broken", body: "It subtracts.", user: "reporter" });
    await e2e.send("issue_comment", e2e.commentPayload(issue, "/aider --file calc.py fix add", "ann"));
    await e2e.idle();
    const status = e2e.repo.comments.filter((c) => c.user === bot).at(-1)?.body ?? "";
    expect(status).toContain(
      "⚠️ The repository's commands were not run: the image `localhost/aider-bot-no-such-image:1` (from `sandbox.image` in .github/aider.yml) could not be pulled",
    );
    expect(status).toContain("set `sandbox.image` in .github/aider.yml to an image that exists");
    // Named as a pull failure: no tool to install, no container that "ran", and the change said to be unchecked.
    expect(status).toContain("this change is **unchecked**");
    expect(status).toMatch(
      /<summary>Sandbox<\/summary>\s+Repository commands were not run: the image `localhost\/aider-bot-no-such-image:1`/,
    );
    expect(status).not.toMatch(/could not be started|did not finish|ran in a container/);
    expect(e2e.llm.remaining()).toBe(0);
    expect(containersOf(e2e.home)).toEqual([]);
  });
});

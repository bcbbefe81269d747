import { renderCheckReflection } from "../../src/checks/render-check-reflection.js";
import { narrateLoop } from "../../testkit/narrate-loop.js";

const tap = [
  "TAP version 13",
  "# Subtest: getText retries after a 503",
  "not ok 2 - getText retries after a 503",
  "  ---",
  "  duration_ms: 274.7",
  "  failureType: 'testCodeFailure'",
  "  error: 'GET https://example.test/ failed: 503'",
  "  code: 'ERR_TEST_FAILURE'",
  "  ...",
  "# pass 1",
  "# fail 1",
].join("\n");
// The reflection exactly as the coder renders it for a failed test command.
const reflection = renderCheckReflection(
  { kind: "test", ok: false, command: "node --test", output: tap, locations: [], exitCode: 1 },
  new Map(),
);
const turns = [{ says: "asks for the file" }, { says: "adds a retry loop" }, { says: "fixes the count" }];
const sandboxed =
  "<details><summary>Sandbox</summary>\n\nRepository commands ran in a bubblewrap sandbox.\n\n</details>";
const unsandboxed =
  "<details><summary>Sandbox</summary>\n\nRepository commands ran without a sandbox (`AIDER_BOT_SANDBOX=off`).\n\n</details>";

describe("narrateLoop", () => {
  it("tells each model turn, and before the fix the failed test with the lines that say what failed, then the green run", () => {
    const n = narrateLoop({
      prompts: ["add retries", "src/fetch-client.js added", reflection],
      turns,
      testCommand: "node --test",
      status: `🚀 Pushed [\`abc\`](u) to this pull request.\n\n${sandboxed}`,
    });
    expect(n).toMatchObject({ reflected: true, green: true });
    expect(n.lines).toEqual([
      "model   asks for the file",
      "model   adds a retry loop",
      "checks  The test command `node --test` failed (exit code 1). The bot sends the failure back to the model:",
      "        │ not ok 2 - getText retries after a 503",
      "        │ error: 'GET https://example.test/ failed: 503'",
      "        │ # fail 1",
      "        (with the whole output, 11 lines, and the code at the lines it reports)",
      "model   fixes the count",
      "checks  `node --test` passes: the checks are green, so the bot commits and pushes.",
    ]);
  });

  it.each([
    [
      "checks skipped for want of a sandbox",
      `🚀 Pushed x.\n\n⚠️ Lint, test and setup commands were **not run**: the sandbox cannot run on the app's host (bwrap). The change was not checked.`,
      /NOT run/,
    ],
    [
      "the test still failing",
      `🚀 Pushed x.\n\n⚠️ The test check \`node --test\` still fails on this commit.\n\n${unsandboxed}`,
      /still failing/,
    ],
    [
      "nothing pushed",
      `😕 The test check \`node --test\` still fails after 2 reflections.\n\n${unsandboxed}`,
      /still failing/,
    ],
    ["no repository command run at all", "🚀 Pushed x.", /did not end green/],
  ])("is not green with %s", (_name, status, says) => {
    const n = narrateLoop({ prompts: ["do it"], turns, testCommand: "node --test", status });
    expect(n.green).toBe(false);
    expect(n.lines.at(-1)).toMatch(says);
  });

  it("is green for a run whose commands ran unsandboxed and passed, and says no failure was sent when none was", () => {
    const n = narrateLoop({
      prompts: ["do it", "file added"],
      turns,
      testCommand: "npm test",
      status: `🚀 Opened #3 from \`b\`: u\n\n${unsandboxed}`,
    });
    expect(n).toMatchObject({ reflected: false, green: true });
    expect(n.lines.some((l) => l.startsWith("checks  The test command"))).toBe(false);
  });
});

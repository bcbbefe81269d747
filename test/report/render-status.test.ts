import type { CoderResult } from "../../src/coder/types.js";
import { readRequestMarker, runMarker } from "../../src/github/markers.js";
import { renderFinal, renderInterrupted, renderStage } from "../../src/report/render-status.js";
import type { RunOutcome } from "../../src/run/run-outcome.js";
import type { RunRequest } from "../../src/run/run-request.js";
import { branchTarget } from "../../testkit/builders/run-fixtures.js";

const req: RunRequest = {
  jobId: "job-1",
  deliveryId: "job-1",
  owner: "acme",
  repo: "w",
  installationId: 1,
  cloneUrl: "https://github.com/acme/w.git",
  defaultBranch: "main",
  target: {
    kind: "pull-request",
    number: 3,
    headRef: "f",
    headSha: "a".repeat(40),
    headCloneUrl: "https://github.com/acme/w.git",
    isFork: false,
  },
  verb: "run",
  message: "add retry logic <script>",
  untrustedContext: [],
  files: ["src/a.ts"],
  requester: { login: "ann" },
  settings: {
    model: "gpt-4o",
    editFormat: "diff",
    mapTokens: 1024,
    maxReflections: 3,
    setup: [],
    lint: [],
    autoTest: false,
    timeoutMs: 1,
    commandTimeoutMs: 1,
    protectedPaths: [],
    budget: {},
    requireGreenChecks: true,
    draft: true,
    branchPrefix: "aider/",
  },
};
const base = {
  reflections: 2,
  tokens: { prompt: 12345, completion: 678 },
  costUsd: 0.0123,
  explanation: "I added a loop.",
  shell: ["npm test"],
  elapsedMs: 4200,
};
const files = [{ path: "src/a.ts", added: 5, removed: 1 }];

describe("status comment rendering", () => {
  it("keeps a pull-request loop's mode for retry, without an automatic fix's round; a malformed mode reads as none", () => {
    const reviews: RunRequest = {
      ...req,
      context: {
        mode: { kind: "address-reviews", threads: ["PRRT_a"], extra: "" },
        budget: {} as never,
        resolveThreads: false,
      },
    };
    expect(readRequestMarker(renderStage("queued", reviews))?.mode).toEqual({
      kind: "address-reviews",
      threads: ["PRRT_a"],
      extra: "",
    });
    const auto: RunRequest = {
      ...req,
      context: {
        mode: { kind: "fix-ci", extra: "", autofix: { round: 1, maxRounds: 2, sha: "b".repeat(40) } },
        budget: {} as never,
        resolveThreads: false,
      },
    };
    expect(readRequestMarker(renderStage("queued", auto))?.mode).toEqual({ kind: "fix-ci", extra: "" });
    expect(readRequestMarker(renderStage("queued", req))?.mode).toBeUndefined();
    const forged = `<!-- aider-bot:request:${Buffer.from(JSON.stringify({ verb: "run", text: "x", files: [], mode: { kind: "address-reviews", threads: [1], extra: "" } })).toString("base64")} -->`;
    expect(readRequestMarker(forged)).toEqual({ verb: "run", text: "x", files: [] });
  });

  it("shows the stages, keeps the request for retry and escapes HTML in the quote", () => {
    const body = renderStage("thinking", req);
    expect(body).toContain(runMarker("job-1"));
    expect(body).toContain("✅ cloning · ✅ mapping · ⏳ **thinking** · ▫️ applying");
    expect(body).toContain("> add retry logic &lt;script&gt;");
    expect(readRequestMarker(body)).toEqual({
      verb: "run",
      text: "add retry logic <script>",
      files: ["src/a.ts"],
      editFormat: "diff",
      model: "gpt-4o",
    });
  });

  const cases: [string, RunOutcome, RegExp[], RegExp[]?][] = [
    [
      "pushed",
      {
        kind: "pushed",
        sha: "b".repeat(40),
        url: "https://x/commit/b",
        result: {
          ...base,
          outcome: "changed",
          editedFiles: files,
          commit: { sha: "b".repeat(40), subject: "feat: x" },
        } as CoderResult,
        elapsedMs: 4200,
      },
      [
        /🚀 Pushed \[`bbbbbbb`\]\(https:\/\/x\/commit\/b\)/,
        /`src\/a.ts` \+5 −1/,
        /2 reflections · 12,345 prompt \+ 678 completion tokens · \$0\.0123 · 4\.2 s/,
        /<summary>The model's explanation<\/summary>/,
        /not run/,
      ],
    ],
    [
      "pull request",
      {
        kind: "pull-request",
        sha: "c".repeat(40),
        pr: { number: 9, url: "https://x/pull/9" },
        branch: "aider/issue-3-x",
        result: { ...base, outcome: "changed", editedFiles: files, commit: null } as CoderResult,
        elapsedMs: 1,
      },
      [/Opened #9 from `aider\/issue-3-x`/],
    ],
    [
      "edit failed",
      {
        kind: "not-pushed",
        result: {
          ...base,
          outcome: "edit-failed",
          editedFiles: [],
          failures: [
            {
              path: "src/x.ts",
              reason: "no-match",
              message: "The SEARCH text does not match any lines in `src/x.ts`.",
            },
          ],
        } as CoderResult,
        elapsedMs: 1,
      },
      [
        /The SEARCH block did not match `src\/x.ts` after 3 attempts; nothing was pushed/,
        /\/aider retry --file PATH/,
        /`src\/x.ts` \(no match\)/,
      ],
    ],
    [
      "edit failed, other reasons",
      {
        kind: "not-pushed",
        result: {
          ...base,
          reflections: 0,
          outcome: "edit-failed",
          editedFiles: [],
          failures: [{ path: ".github/workflows/ci.yml", reason: "unsafe-path", message: "Protected path." }],
        } as CoderResult,
        elapsedMs: 1,
      },
      [/edits to `.github\/workflows\/ci.yml` could not be applied after 1 attempt;/],
    ],
    [
      "changed but not pushed (checks failed, pushed anyway elsewhere)",
      {
        kind: "pushed",
        sha: "e".repeat(40),
        url: "https://x/commit/e",
        result: {
          ...base,
          outcome: "checks-failed",
          editedFiles: files,
          report: { kind: "lint", ok: false, command: "eslint .", output: "1 error", locations: [] },
        } as CoderResult,
        elapsedMs: 1,
      },
      [/The lint check `eslint .` still fails on this commit/, /does not set `require_green_checks`/],
    ],
    [
      "a failed setup command, pushed: named as setup, the change unchecked",
      {
        kind: "pushed",
        sha: "e".repeat(40),
        url: "https://x/commit/e",
        result: {
          ...base,
          outcome: "checks-failed",
          editedFiles: files,
          report: { kind: "setup", ok: false, command: "uv sync", output: "uv: not found", locations: [] },
        } as CoderResult,
        elapsedMs: 1,
      },
      [/The setup command `uv sync` failed, so this change is \*\*unchecked\*\*/],
      [/test check|still fails/],
    ],
    [
      "a failed setup command, not pushed",
      {
        kind: "not-pushed",
        result: {
          ...base,
          outcome: "checks-failed",
          editedFiles: files,
          report: { kind: "setup", ok: false, command: "uv sync", output: "uv: not found", locations: [] },
        } as CoderResult,
        elapsedMs: 1,
      },
      [
        /😕 The setup command `uv sync` failed: the repository's lint and tests could not judge the change, so it is \*\*unchecked\*\*/,
        /<summary>Output of uv sync<\/summary>/,
      ],
      [/test check|still fails/],
    ],
    ["cancelled", { kind: "cancelled", reason: "cancel", elapsedMs: 1 }, [/Cancelled on request; nothing was pushed/]],
    [
      "shut down",
      { kind: "cancelled", reason: "shutdown", elapsedMs: 1 },
      [/app restarted while this ran; nothing was pushed.*starts again from a fresh clone/],
    ],
    [
      "reverted",
      { kind: "reverted", sha: "f".repeat(40), revertedSha: "1".repeat(40), url: "https://x/commit/1", elapsedMs: 1 },
      [/Reverted \[`1111111`\]/],
    ],
    [
      "checks failed with green checks required",
      {
        kind: "not-pushed",
        result: {
          ...base,
          outcome: "checks-failed",
          editedFiles: files,
          report: { kind: "test", ok: false, command: "npm test", output: "1 failing", locations: [] },
        } as CoderResult,
        elapsedMs: 1,
      },
      [
        /The test check `npm test` still fails after 2 reflections/,
        /require_green_checks/,
        /<summary>Output of npm test<\/summary>/,
      ],
    ],
    [
      "llm error",
      {
        kind: "not-pushed",
        result: {
          ...base,
          outcome: "llm-error",
          errorKind: "auth",
          message: "The model endpoint rejected the API key.",
        } as CoderResult,
        elapsedMs: 1,
      },
      [/The model call failed: The model endpoint rejected the API key\./],
    ],
    [
      "budget",
      {
        kind: "not-pushed",
        result: {
          ...base,
          outcome: "budget-exceeded",
          editedFiles: [],
          message: "The run used $1.20 of its $1.00 budget.",
        } as CoderResult,
        elapsedMs: 1,
      },
      [/Raise `budget`/],
    ],
    [
      "timed out",
      {
        kind: "not-pushed",
        result: {
          ...base,
          outcome: "timed-out",
          editedFiles: [],
          message: "The run exceeded its time limit.",
        } as CoderResult,
        elapsedMs: 1,
      },
      [/Raise `timeout`/],
    ],
    [
      "no changes",
      {
        kind: "answered",
        result: { ...base, outcome: "no-changes", answer: "The function is already correct." } as CoderResult,
        elapsedMs: 1,
      },
      [/The function is already correct\./],
    ],
    [
      "fork patch",
      {
        kind: "patch",
        sha: "d".repeat(40),
        patch: "From abc\n+x",
        result: { ...base, outcome: "changed", editedFiles: files, commit: null } as CoderResult,
        elapsedMs: 1,
      },
      [/comes from a fork/, /git am/, /```diff\nFrom abc/],
    ],
    [
      "refused undo",
      { kind: "refused", message: "Someone pushed on top of my last commit.", elapsedMs: 1 },
      [/😕 Someone pushed on top/],
    ],
    [
      "error",
      { kind: "error", message: "The branch `f` moved while I worked.", elapsedMs: 1 },
      [/moved while I worked/, /\/aider retry/],
    ],
  ];
  it.each(cases)("final: %s", (_name, outcome, patterns, absent = []) => {
    const body = renderFinal(outcome, req);
    for (const p of patterns) expect(body).toMatch(p);
    for (const p of absent) expect(body).not.toMatch(p);
    expect(body.startsWith(runMarker("job-1"))).toBe(true);
  });

  it("a push to a branch without a pull request names the branch, not a pull request", () => {
    const result = { ...base, outcome: "changed", editedFiles: [], commit: { sha: "b".repeat(40), subject: "x" } };
    const pushed: RunOutcome = {
      kind: "pushed",
      sha: "b".repeat(40),
      url: "https://x/commit/b",
      result: result as CoderResult,
      elapsedMs: 1,
    };
    const onBranch = { ...req, target: branchTarget({ headRef: "f" }) };
    expect(renderFinal(pushed, onBranch)).toContain("🚀 Pushed [`bbbbbbb`](https://x/commit/b) to `f`.");
    expect(renderFinal(pushed, req)).toContain("to this pull request.");
  });

  it("stays under GitHub's comment size limit", () => {
    const huge = {
      kind: "not-pushed",
      result: {
        ...base,
        explanation: "x".repeat(100_000),
        outcome: "checks-failed",
        editedFiles: files,
        report: { kind: "lint", ok: false, command: "eslint", output: "y".repeat(100_000), locations: [] },
      },
      elapsedMs: 1,
    } as RunOutcome;
    const body = renderFinal(huge, req);
    expect(body.length).toBeLessThan(65_536);
    expect((body.match(/<details>/g) ?? []).length).toBe((body.match(/<\/details>/g) ?? []).length);
  });

  it("keeps tool output that contains backticks inside its code block", () => {
    const r = {
      ...base,
      outcome: "checks-failed",
      editedFiles: files,
      report: { kind: "test", ok: false, command: "npm test", output: "expected ```x``` got", locations: [] },
    } as CoderResult;
    const body = renderFinal({ kind: "not-pushed", result: r, elapsedMs: 1 }, req);
    expect(body).toContain("````\nexpected ```x``` got\n````");
  });

  it("shows usage: tokens, cost, reflections and elapsed time; says so when the cost is unknown", () => {
    const r = {
      ...base,
      costUsd: null,
      reflections: 1,
      outcome: "changed",
      editedFiles: files,
      commit: null,
    } as CoderResult;
    const body = renderFinal({ kind: "pushed", sha: "b".repeat(40), url: "u", result: r, elapsedMs: 61_000 }, req);
    expect(body).toContain(
      "1 reflection · 12,345 prompt + 678 completion tokens · cost unknown (no price for this model) · 61.0 s",
    );
    expect(body).not.toContain("$");
  });

  it("says how many prompt tokens came from the provider's cache", () => {
    const r = {
      ...base,
      tokens: { prompt: 27_400, completion: 678, cacheRead: 24_180, cacheWrite: 2_000 },
      costUsd: 0.0123,
      reflections: 2,
      outcome: "changed",
      editedFiles: files,
      commit: null,
    } as CoderResult;
    const body = renderFinal({ kind: "pushed", sha: "b".repeat(40), url: "u", result: r, elapsedMs: 1000 }, req);
    expect(body).toContain(
      "2 reflections · 27,400 prompt + 678 completion tokens · 24,180 of 27,400 prompt tokens from cache · $0.0123",
    );
    const none = renderFinal(
      {
        kind: "pushed",
        sha: "b".repeat(40),
        url: "u",
        result: { ...r, tokens: { prompt: 5, completion: 1 } },
        elapsedMs: 1,
      },
      req,
    );
    expect(none).not.toContain("from cache");
  });

  it("names the models that answered (a fallback's too), and renders a spend refusal as such", () => {
    const r = {
      ...base,
      costUsd: 0.5,
      reflections: 0,
      outcome: "changed",
      editedFiles: files,
      commit: null,
      models: ["gpt-4o", "gpt-4o-mini"],
    } as CoderResult;
    const body = renderFinal({ kind: "pushed", sha: "b".repeat(40), url: "u", result: r, elapsedMs: 1_000 }, req);
    expect(body).toContain("· $0.5000 · answered by `gpt-4o`, `gpt-4o-mini` ·");
    const refused = {
      ...base,
      costUsd: null,
      tokens: { prompt: 0, completion: 0 },
      outcome: "llm-error",
      errorKind: "spend-limit",
      message: "Spend limit reached: …",
    } as CoderResult;
    const text = renderFinal({ kind: "not-pushed", result: refused, elapsedMs: 1_000 }, req);
    expect(text).toContain("🛑 Spend limit reached: …");
    expect(text).not.toContain("The model call failed");
  });

  it("says plainly when checks were skipped and why, and names the sandbox mode in the details", () => {
    const skipped = {
      ...base,
      outcome: "changed",
      editedFiles: files,
      commit: null,
      sandbox: "unavailable: bubblewrap (bwrap) is not installed",
      checksSkipped: "the sandbox cannot run on the app's host (bubblewrap (bwrap) is not installed)",
    } as CoderResult;
    const body = renderFinal({ kind: "pushed", sha: "b".repeat(40), url: "u", result: skipped, elapsedMs: 1 }, req);
    expect(body).toContain(
      "⚠️ Lint, test and setup commands were **not run**: the sandbox cannot run on the app's host (bubblewrap (bwrap) is not installed)",
    );
    expect(body).toMatch(
      /<summary>Sandbox<\/summary>\s+Repository commands were not run: the sandbox is unavailable: bubblewrap \(bwrap\) is not installed\./,
    );
    const sandboxed = renderFinal(
      {
        kind: "pushed",
        sha: "b".repeat(40),
        url: "u",
        result: {
          ...skipped,
          sandbox: "bubblewrap",
          checksSkipped: undefined,
          checkRuns: [{ kind: "test", command: "npm test", status: "passed" }],
        } as CoderResult,
        elapsedMs: 1,
      },
      req,
    );
    expect(sandboxed).toMatch(/<summary>Sandbox<\/summary>\s+Repository commands ran in a bubblewrap sandbox\./);
    const blocked = renderFinal(
      {
        kind: "pushed",
        sha: "b".repeat(40),
        url: "u",
        result: {
          ...skipped,
          sandbox: "bubblewrap",
          checksSkipped: undefined,
          checkRuns: [{ kind: "test", command: "npm test", status: "passed" }],
          network: {
            policy: "registries",
            blocked: [
              { host: "evil.example.net", kind: "not-allowed", reason: "not on the allowlist", connections: 3 },
            ],
            repositoryMayAdd: true,
            added: [],
          },
        } as CoderResult,
        elapsedMs: 1,
      },
      req,
    );
    expect(blocked).toMatch(
      /<summary>Sandbox<\/summary>\s+Repository commands ran in a bubblewrap sandbox\.\s+Network: \*\*registries\*\*[^\n]*\n- blocked: `evil\.example\.net` \(3 connections\) — add it to `sandbox\.network\.allow` in \.github\/aider\.yml if the tests need it\s+<\/details>/,
    );
    // No command ran (none configured or found): the section does not claim one ran in the sandbox.
    const none = renderFinal(
      {
        kind: "pushed",
        sha: "b".repeat(40),
        url: "u",
        result: { ...skipped, sandbox: "bubblewrap", checksSkipped: undefined } as CoderResult,
        elapsedMs: 1,
      },
      req,
    );
    expect(none).toMatch(/<summary>Sandbox<\/summary>\s+No repository command ran in this run\./);
    expect(sandboxed).not.toContain("not run**");
    const off = renderFinal(
      {
        kind: "pushed",
        sha: "b".repeat(40),
        url: "u",
        result: {
          ...skipped,
          sandbox: "off",
          checksSkipped: undefined,
          checkRuns: [{ kind: "test", command: "npm test", status: "passed" }],
        } as CoderResult,
        elapsedMs: 1,
      },
      req,
    );
    expect(off).toContain("without a sandbox (`AIDER_BOT_SANDBOX=off`)");
    const container = renderFinal(
      {
        kind: "pushed",
        sha: "b".repeat(40),
        url: "u",
        result: {
          ...skipped,
          sandbox: "container (image python:3.12, from the repository's toolchain (python 3.12))",
          checksSkipped: undefined,
          checkRuns: [{ kind: "test", command: "pytest", status: "failed" }],
        } as CoderResult,
        elapsedMs: 1,
      },
      req,
    );
    expect(container).toMatch(
      /<summary>Sandbox<\/summary>\s+Repository commands ran in a container of `python:3.12` \(image from the repository's toolchain \(python 3.12\)\)\./,
    );
  });
  it("a check that fails on the default branch too is named as such, and a change no check judged is unchecked", () => {
    const preExisting = {
      ...base,
      outcome: "changed",
      editedFiles: files,
      commit: { sha: "c".repeat(40), subject: "x" },
      sandbox: "bubblewrap",
      checkRuns: [
        {
          kind: "test",
          command: "make test",
          status: "pre-existing",
          onBase: "go: go.mod file not found in current directory or any parent directory",
        },
      ],
    } as CoderResult;
    const lenient = { ...req, settings: { ...req.settings, requireGreenChecks: false, autoTest: true } };
    const pushed = renderFinal(
      { kind: "pushed", sha: "b".repeat(40), url: "u", result: preExisting, elapsedMs: 1 },
      lenient,
    );
    expect(pushed).toContain(
      "⚠️ `make test` fails on the default branch too (go: go.mod file not found in current directory or any parent directory): not caused by this change.",
    );
    expect(pushed).toContain("it is **unchecked**");
    expect(pushed).not.toMatch(/still fails/);
    // Green checks required: a change no check judged is not pushed, and the status says why in so many words.
    const strict = { ...req, settings: { ...req.settings, autoTest: true } };
    const kept = renderFinal({ kind: "not-pushed", result: preExisting, elapsedMs: 1 }, strict);
    expect(kept).toContain(
      "😕 Nothing was pushed: the change is **unchecked** (`make test` fails on the default branch too (go: go.mod file not found in current directory or any parent directory)), and this repository requires green checks",
    );
    expect(kept).not.toContain("✅ Changes made.");
    // Tests that ran, failing only as on the base, did judge the change: not unchecked.
    const ranTests = {
      ...preExisting,
      checkRuns: [
        {
          kind: "test",
          command: "go test ./...",
          status: "pre-existing",
          onBase: "1 failing test: TestNet",
          testsRan: true,
        },
      ],
    } as CoderResult;
    const judged = renderFinal(
      { kind: "pushed", sha: "b".repeat(40), url: "u", result: ranTests, elapsedMs: 1 },
      lenient,
    );
    expect(judged).toContain("`go test ./...` fails on the default branch too (1 failing test: TestNet)");
    expect(judged).not.toContain("unchecked");
  });

  it("an image that could not be pulled: named as a pull failure with the image and its source, never as a container that ran", () => {
    const why =
      "the image `ghcr.io/acme/ci:9` (from `sandbox.image` in .github/aider.yml) could not be pulled: manifest unknown. Check the image's name and that the app's host can reach its registry, or set `sandbox.image` in .github/aider.yml to an image that exists";
    const result = {
      ...base,
      outcome: "checks-failed",
      editedFiles: files,
      sandbox: "container (image ghcr.io/acme/ci:9, from `sandbox.image` in .github/aider.yml)",
      report: {
        kind: "setup",
        ok: false,
        command: "npm ci",
        output: `The setup command \`npm ci\` was not run: ${why}.`,
        locations: [],
        exitCode: null,
        environmentError: true,
        notRun: why,
      },
      checkRuns: [
        { kind: "setup", command: "npm ci", status: "could-not-run", note: why, notRun: true },
        { kind: "test", command: "npm test", status: "not-run", note: "an earlier check failed" },
      ],
    } as CoderResult;
    const lenient = { ...req, settings: { ...req.settings, requireGreenChecks: false, autoTest: true } };
    const body = renderFinal({ kind: "pushed", sha: "b".repeat(40), url: "u", result, elapsedMs: 1 }, lenient);
    expect(body).toContain(
      "⚠️ The repository's commands were not run: the image `ghcr.io/acme/ci:9` (from `sandbox.image` in .github/aider.yml) could not be pulled: manifest unknown.",
    );
    expect(body).toContain("so this change is **unchecked**");
    expect(body).toMatch(
      /<summary>Sandbox<\/summary>\s+Repository commands were not run: the image `ghcr.io\/acme\/ci:9`/,
    );
    expect(body).not.toMatch(/ran in a container|did not finish|still fails|is installed/);
  });

  it("lists the files added at the model's request, and says nothing of them when there were none", () => {
    const asked = {
      ...base,
      outcome: "changed",
      editedFiles: files,
      commit: null,
      filesAddedOnRequest: ["src/util.ts", "src/http/client.ts"],
    } as CoderResult;
    const body = renderFinal({ kind: "pushed", sha: "b".repeat(40), url: "u", result: asked, elapsedMs: 1 }, req);
    expect(body).toContain(
      "**Files added at the model's request** (it named them after seeing the repo map)\n- `src/util.ts`\n- `src/http/client.ts`",
    );
    const plain = renderFinal(
      {
        kind: "pushed",
        sha: "b".repeat(40),
        url: "u",
        result: { ...asked, filesAddedOnRequest: undefined } as CoderResult,
        elapsedMs: 1,
      },
      req,
    );
    expect(plain).not.toContain("at the model's request");
  });
});

describe("status comments for long requests", () => {
  const long = `make this change:\n${"please refactor the parser carefully. ".repeat(1600)}`.slice(0, 60_000);
  const longReq: RunRequest = { ...req, message: long, triggerCommentId: 4242 };

  it("a 60,000-character request gets a queued comment under the limit that refers to the asking comment", () => {
    expect(long.length).toBe(60_000);
    const body = renderStage("queued", longReq);
    expect(body.length).toBeLessThan(65_536);
    expect(body.startsWith(runMarker("job-1"))).toBe(true);
    expect(readRequestMarker(body)).toEqual({
      verb: "run",
      textRef: { kind: "issue-comment", id: 4242 },
      files: ["src/a.ts"],
      editFormat: "diff",
      model: "gpt-4o",
    });
  });

  it("a review-thread request refers to its review comment", () => {
    const review: RunRequest = {
      ...longReq,
      triggerCommentId: undefined,
      target: {
        kind: "review-comment",
        number: 3,
        headRef: "f",
        headSha: "a".repeat(40),
        headCloneUrl: "u",
        isFork: false,
        commentId: 77,
        path: "a.ts",
        line: 1,
        diffHunk: "",
      } as RunRequest["target"],
    };
    expect(readRequestMarker(renderStage("queued", review))?.textRef).toEqual({ kind: "review-comment", id: 77 });
  });

  it("without a comment to refer to, the stored text is cut so the marker stays small", () => {
    const body = renderStage("queued", { ...longReq, triggerCommentId: undefined });
    const stored = readRequestMarker(body)!;
    expect(body.length).toBeLessThan(10_000);
    expect(long.startsWith(stored.text!)).toBe(true);
  });

  it("the final status of a long request shows its outcome and keeps both markers intact, even with huge output", () => {
    const huge = {
      kind: "not-pushed",
      result: {
        ...base,
        explanation: "x".repeat(100_000),
        outcome: "checks-failed",
        editedFiles: files,
        report: { kind: "lint", ok: false, command: "eslint", output: "y".repeat(100_000), locations: [] },
      },
      elapsedMs: 1,
    } as RunOutcome;
    const body = renderFinal(huge, longReq);
    expect(body.length).toBeLessThan(65_536);
    expect(body.startsWith(runMarker("job-1"))).toBe(true);
    expect(body).toMatch(/The lint check `eslint` still fails/);
    expect(readRequestMarker(body)?.textRef).toEqual({ kind: "issue-comment", id: 4242 });
  });
});

describe("renderInterrupted", () => {
  it.each([
    [
      "worker lost",
      { kind: "worker-lost", message: "its worker stopped renewing the lease 2 times" },
      [/💥 This run was interrupted.*lease 2 times.*`\/bot retry`/],
    ],
    [
      "crashed",
      { kind: "crashed", message: "GitHub answered 502" },
      [/failed before it could report: GitHub answered 502/, /`\/bot retry`/],
    ],
    ["requeued", { kind: "requeued" }, [/starts again from a fresh clone/]],
    ["waiting", { kind: "waiting" }, [/stays queued and runs when the app is back/]],
  ] as const)("%s", (_name, why, patterns) => {
    const body = renderInterrupted(why, req, "bot");
    for (const p of patterns) expect(body).toMatch(p);
    expect(body.startsWith(runMarker("job-1"))).toBe(true);
    expect(body).toContain("<!-- aider-bot:request:");
  });
});

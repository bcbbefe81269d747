import type { CoderResult } from "../../src/coder/types.js";
import { createContextHooks } from "../../src/compose/create-context-hooks.js";
import { DEFAULT_CONTEXT_BUDGET } from "../../src/config/context-budget.js";
import { requestMarker, runMarker } from "../../src/github/markers.js";
import type { CompletionRequest } from "../../src/llm/types.js";
import type { RunRequest } from "../../src/run/run-request.js";
import { issueTarget, runRequest, runSettings } from "../../testkit/builders/run-fixtures.js";
import nock from "nock";
import { GITHUB_API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const settings = runSettings({ model: "big", weakModel: "small" });
const req: RunRequest = runRequest({
  jobId: "j9",
  deliveryId: "j9",
  installationId: 1,
  target: issueTarget({ number: 4, title: "t" }),
  message: "again",
  requester: { login: "ann" },
  settings,
  context: { mode: { kind: "plain" }, budget: { ...DEFAULT_CONTEXT_BUDGET, prior_runs: 150 }, resolveThreads: false },
});

describe("createContextHooks", () => {
  useStrictNock(nock);
  it("summarises earlier runs with the weak model (no max_tokens), and has nothing to do after a run without threads", async () => {
    const long = `${runMarker("j1")}\n${requestMarker({ verb: "run", text: "add retries", files: [] })}\n🚀 Pushed [\`abc1234\`](u) to this pull request.\n\n${"Long explanation. ".repeat(200)}`;
    nock(GITHUB_API)
      .get("/repos/acme/web/issues/4/comments")
      .query(true)
      .reply(200, [{ id: 1, body: long, user: { login: "aider-bot[bot]" }, created_at: "2026-01-01T00:00:00Z" }]);
    const api = testOctokit();
    const asked: CompletionRequest[] = [];
    const llm = {
      complete: async (r: CompletionRequest) => (
        asked.push(r),
        {
          text: "You asked me to add retries; I pushed abc1234.",
          finishReason: "stop" as const,
          usage: { prompt: 1, completion: 1 },
          usageEstimated: false,
          costUsd: null,
        }
      ),
    };
    const hooks = createContextHooks({
      req,
      api,
      llm,
      botLogin: "aider-bot[bot]",
      webUrl: "https://github.com",
      count: (s) => Math.ceil(s.length / 4),
    });
    const prepared = await hooks.prContext!(req);
    expect(asked.map((r) => [r.model, r.maxTokens])).toEqual([["small", undefined]]);
    expect(prepared!.blocks[0]!.text).toContain("(summary) You asked me to add retries; I pushed abc1234.");
    const changed: CoderResult = {
      outcome: "changed",
      editedFiles: [],
      commit: null,
      reflections: 0,
      tokens: { prompt: 1, completion: 1 },
      costUsd: null,
      explanation: "",
      shell: [],
      elapsedMs: 1,
    };
    expect(await hooks.afterRun!(req, { kind: "pushed", result: changed, sha: "c", url: "u" }, prepared)).toBeNull();
  });
});

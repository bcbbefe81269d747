import type { GitHubClient } from "../github/github-client.js";
import { RepoGitHub } from "../github/repo-github.js";
import type { LlmClient } from "../llm/types.js";
import type { RunJobDeps } from "../run/run-job-deps.js";
import type { RunRequest } from "../run/run-request.js";
import type { CountTokens } from "../context/build-sources.js";
import { collectImages } from "../context/fetch/collect-images.js";
import { loadRunInstructions } from "../run/prepare/load-run-instructions.js";
import { preparePrContext } from "../run/prepare/prepare-pr-context.js";
import { replyToThreads } from "../report/reply-to-threads.js";
import { summaryMessages } from "../context/summarise-kept.js";

/**
 * The two run-job hooks of the pull-request context for one job, over the installation's Octokit (REST + GraphQL): read the
 * context before the coder, and reply in (and resolve) the addressed review threads after it.
 */
export function createContextHooks(args: {
  req: RunRequest;
  /** The installation Octokit (REST and GraphQL). */
  api: GitHubClient;
  llm: LlmClient;
  botLogin: string;
  webUrl: string;
  count: CountTokens;
}): Pick<RunJobDeps, "prContext" | "afterRun"> {
  const github = RepoGitHub.create({ octokit: args.api, owner: args.req.owner, repo: args.req.repo });
  const model = args.req.settings.weakModel ?? args.req.settings.model;
  return {
    prContext: async (req) => {
      const [prepared, instructions] = await Promise.all([
        preparePrContext(req, {
          github,
          botLogin: args.botLogin,
          webUrl: args.webUrl,
          count: args.count,
          // Earlier runs that do not fit are summarised by the weak model, as Aider summarises its chat history. The
          // length is asked for in the prompt, not as max_tokens: reasoning models reject it or need room beyond it.
          summarise: async (text, maxTokens) =>
            (await args.llm.complete({ model, messages: summaryMessages(text, maxTokens) })).text,
          // Screenshots in the issue, its comments and the request: GitHub's attachments only.
          images: (texts) =>
            collectImages({
              github,
              texts,
              webOrigin: args.webUrl,
              model: req.settings.model,
              ...(req.settings.vision !== undefined ? { vision: req.settings.vision } : {}),
            }),
        }),
        // The repository's instruction files, from the default branch.
        loadRunInstructions(req, github),
      ]);
      if (!instructions) return prepared;
      return { ...(prepared ?? { blocks: [], details: "", files: [], autoTest: false, threads: [] }), instructions };
    },
    // Review threads are only ever read for a pull request (a run with a thread number).
    afterRun: async (req, outcome, prepared) =>
      prepared?.threads.length && req.target.kind !== "branch"
        ? replyToThreads({
            github,
            pull: req.target.number,
            threads: prepared.threads,
            jobId: req.jobId,
            outcome,
            resolve: req.context?.resolveThreads ?? false,
          })
        : null,
  };
}

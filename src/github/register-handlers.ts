import type { Probot } from "probot";
import { handleEvent, type AppServices, type HandleResult } from "./handle-event.js";
import type { GitHubApi } from "./github-api.js";

/** The webhook events that can carry a request. */
export const HANDLED_EVENTS = [
  "issue_comment.created",
  "pull_request_review_comment.created",
  "issues.labeled",
  "issues.opened",
  // Issue #14: ci.autofix (ignored unless a repository opts in).
  "check_suite.completed",
] as const;

/**
 * Wire the app's webhook handlers into Probot: each event is decided, authorized, acknowledged (👀 + "queued"
 * status comment) and enqueued; the injected queue's handler (run-job) does the work later. Config comes from
 * `context.config("aider.yml")`, i.e. `.github/aider.yml` on the default branch with `_extends` support.
 * `onHandled` sees every result (logs, tests).
 */
export function registerHandlers(app: Probot, services: AppServices, onHandled?: (result: HandleResult, delivery: string) => void): void {
  app.on([...HANDLED_EVENTS], async (context) => {
    const result = await handleEvent(
      {
        name: context.name,
        id: context.id,
        payload: context.payload,
        api: context.octokit as unknown as GitHubApi,
        loadConfig: () => context.config("aider.yml"),
        log: context.log,
      },
      services,
    );
    context.log.debug({ result }, "webhook handled");
    onHandled?.(result, context.id);
  });
}

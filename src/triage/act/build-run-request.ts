import { prRunSpec } from "../../context/pr-run-spec.js";
import type { RepoGitHub } from "../../github/repo-github.js";
import { ok, type Result } from "../../result.js";
import { resolveSettings } from "../../run/prepare/resolve-settings.js";
import type { RunRequest, RunTarget } from "../../run/run-request.js";
import type { EventAction } from "../decide-command.js";
import type { AppServices } from "../triage-services.js";
import { approvePlan, type ApprovalRefusal } from "../plan-approval.js";
import { retryInputs, type RequestInputs, type RetryRefusal } from "./retry-inputs.js";

type Enqueue = Extract<EventAction, { kind: "enqueue" }>;

/** Why no job could be built from an accepted command; the message is the bot's reply. */
type RequestRefusal = RetryRefusal | "model-not-allowed" | ApprovalRefusal;

/** The RunRequest for a job: `retry` finds the last request in the bot's status comments; a PR's head is looked up. */
export async function buildRunRequest(
  github: RepoGitHub,
  action: Enqueue,
  defaults: AppServices["defaults"],
  botLogin: string,
): Promise<Result<RunRequest, RequestRefusal>> {
  const { facts, config } = action;
  const inputs = action.verb === "retry" ? await retryInputs(github, action, botLogin) : ok(commandInputs(action));
  if (!inputs.ok) return inputs;
  const { verb, text, flags, mode } = inputs.value;
  const resolved = resolveSettings(config, flags, defaults);
  if (!resolved.ok) return resolved;
  const target = await runTarget(github, facts);
  // An approval runs the open plan, if it still fits the branch (checked again after the clone).
  const approved = action.verb === "approve" ? await approvedPlan(github, action, target, text, botLogin) : ok(null);
  if (!approved.ok) return approved;
  const plan = approved.value;
  return ok({
    jobId: action.jobId,
    deliveryId: action.delivery,
    owner: facts.owner,
    repo: facts.repo,
    installationId: facts.installationId,
    cloneUrl: facts.cloneUrl,
    defaultBranch: facts.defaultBranch,
    ...(facts.language ? { language: facts.language } : {}),
    target,
    verb,
    message: plan
      ? `Carry out the approved plan${plan.corrections ? ` with corrections: ${plan.corrections}` : ""}.`
      : text,
    untrustedContext: action.untrustedContext,
    files: flags.files,
    requester: {
      login: facts.sender.login,
      ...(facts.sender.id ? { id: facts.sender.id } : {}),
      ...(facts.sender.type === "Bot" ? { isBot: true } : {}),
    },
    ...(facts.reactTo.kind === "issue-comment" ? { triggerCommentId: facts.reactTo.id } : {}),
    settings: resolved.value,
    // Every run built here reads its PR/issue context; address-reviews / fix-ci carry their mode.
    context: prRunSpec(config, mode ?? { kind: "plain" }),
    ...(plan ? { plan } : {}),
  });
}

/** The inputs of a command as it was written (an approval runs as `run`). */
function commandInputs(action: Enqueue): RequestInputs {
  const verb = action.verb === "retry" || action.verb === "approve" ? "run" : action.verb;
  return { verb, text: action.text, flags: action.flags, mode: action.mode };
}

/** Where the run works: the pull request's head as GitHub reports it now (or its review thread), or the issue. */
async function runTarget(github: RepoGitHub, facts: Enqueue["facts"]): Promise<RunTarget> {
  if (!facts.isPullRequest) return { kind: "issue", number: facts.number, title: facts.title };
  const pr = await github.getPullRequest(facts.number);
  const head = {
    number: facts.number,
    headRef: String(pr.head.ref),
    headSha: String(pr.head.sha),
    headCloneUrl: String(pr.head.repo?.clone_url ?? facts.cloneUrl),
    isFork: pr.head.repo?.full_name !== `${facts.owner}/${facts.repo}`,
    ...(pr.maintainer_can_modify ? { maintainerCanModify: true } : {}),
    ...(pr.head.repo?.full_name ? { headRepoFullName: String(pr.head.repo.full_name) } : {}),
  };
  return facts.review ? { kind: "review-comment", ...head, ...facts.review } : { kind: "pull-request", ...head };
}

/** The plan an approval runs, if it is still open and made on the branch's current head. */
async function approvedPlan(
  github: RepoGitHub,
  action: Enqueue,
  target: RunTarget,
  corrections: string,
  botLogin: string,
): Promise<Result<NonNullable<RunRequest["plan"]>, ApprovalRefusal>> {
  const { facts } = action;
  // An issue's plan is made on the default branch's head.
  const head = target.kind === "issue" ? await github.getCommitSha(facts.defaultBranch) : target.headSha;
  return approvePlan(github, {
    issueNumber: facts.number,
    botLogin,
    ...(facts.planComment ? { commentId: facts.planComment.id } : {}),
    approver: facts.sender.login,
    command: action.config.trigger.command,
    head,
    corrections,
  });
}

import type { Logger } from "pino";
import { authorize, permissionFromApi } from "../commands/authorize.js";
import { helpText } from "../commands/help-text.js";
import type { Command } from "../commands/parse-command.js";
import { parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import type { JobQueue } from "../jobs/job-queue.js";
import { resolveSettings } from "../run/resolve-settings.js";
import type { RunRequest, RunTarget } from "../run/run-request.js";
import { decideEvent, type EventFacts } from "./decide-event.js";
import { ensureComment, listComments } from "./ensure-comment.js";
import type { GitHubApi } from "./github-api.js";
import { configMarker, readRequestMarker, runMarker, unauthorizedMarker } from "./markers.js";
import { renderStage } from "./render-status.js";

export interface EventContext {
  name: string;
  /** X-GitHub-Delivery. */
  id: string;
  payload: unknown;
  api: GitHubApi;
  /** `.github/aider.yml` from the default branch, parsed YAML (Probot's context.config, so `_extends` works). */
  loadConfig(): Promise<unknown>;
  log: Logger;
}

export interface AppServices {
  queue: JobQueue<RunRequest>;
  botLogin(): Promise<string>;
  defaults: { model: string; weakModel?: string };
}

export type HandleResult = { kind: "ignored"; reason: string } | { kind: "replied"; reason: string } | { kind: "enqueued"; jobId: string } | { kind: "cancelled"; count: number };

/**
 * One webhook: decide, load and validate config, authorize, acknowledge (👀 + "queued" status comment) and enqueue.
 * Never runs the job inline: GitHub's 10-second limit is never near.
 */
export async function handleEvent(ctx: EventContext, services: AppServices): Promise<HandleResult> {
  const payload = ctx.payload as { issue?: { body?: string }; comment?: { body?: string } };
  // Cheap pre-filter before any API call: comments without a slash command are the common case.
  if ((ctx.name === "issue_comment" || ctx.name === "pull_request_review_comment") && !/^ {0,3}\//m.test(payload.comment?.body ?? "")) {
    return { kind: "ignored", reason: "no command" };
  }
  const raw = await ctx.loadConfig().catch((error: unknown) => ({ __error: error instanceof Error ? error.message : String(error) }));
  const parsed = raw && typeof raw === "object" && "__error" in raw ? { ok: false as const, problems: [{ path: "(file)", message: String((raw as { __error: string }).__error) }] } : parseRepoConfig(raw);
  const trigger = parsed.ok ? parsed.config.trigger : { command: "aider", label: "aider" };
  const decision = decideEvent(ctx.name, ctx.payload, trigger);
  if (decision.kind === "ignore") return { kind: "ignored", reason: decision.reason };
  const { facts, command } = decision;
  const log = ctx.log.child({ delivery: ctx.id, repo: `${facts.owner}/${facts.repo}`, number: facts.number });
  const where = { owner: facts.owner, repo: facts.repo, issueNumber: facts.number };
  const botLogin = await services.botLogin();

  const permission = await ctx.api
    .request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", { owner: facts.owner, repo: facts.repo, username: facts.sender.login })
    .then((r) => permissionFromApi(r.data))
    .catch(() => "none" as const);
  const verb = command.verb === "invalid" ? "help" : command.verb;
  const auth = authorize({ sender: facts.sender, verb, permission, selfLogin: botLogin, trigger: parsed.ok ? parsed.config.trigger : { min_permission: "write", ask_permission: "triage", allowed_bots: [] } });
  if (!auth.allow) {
    if (auth.reason !== "permission") return { kind: "ignored", reason: auth.message };
    log.info({ sender: facts.sender.login, permission }, "unauthorized command");
    // One polite reply per user and issue, not one per comment.
    const marker = unauthorizedMarker(facts.sender.login);
    const existing = (await listComments(ctx.api, where)).some((c) => c.user === botLogin && c.body.includes(marker));
    if (!existing) await ensureComment(ctx.api, { ...where, marker, botLogin, body: `Sorry, ${auth.message} Ask a maintainer to run it for you.` });
    return { kind: "replied", reason: "unauthorized" };
  }
  if (!parsed.ok) {
    const list = parsed.problems.map((p) => `- \`${p.path}\`: ${p.message}`).join("\n");
    await ensureComment(ctx.api, { ...where, marker: configMarker, botLogin, body: `😕 I can't run: \`.github/aider.yml\` on the default branch is invalid.\n\n${list}\n\nFix the file and try again.` });
    return { kind: "replied", reason: "invalid config" };
  }
  const config = parsed.config;
  if (command.verb === "help" || command.verb === "invalid") {
    const body = command.verb === "invalid" ? `${command.message}\n\n${helpText(config.trigger.command)}` : helpText(config.trigger.command);
    await ctx.api.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: facts.owner, repo: facts.repo, issue_number: facts.number, body });
    return { kind: "replied", reason: command.verb };
  }
  const key = `${facts.owner}/${facts.repo}#${facts.number}`;
  const jobId = facts.dedupeId ?? ctx.id;
  if (services.queue.seen(jobId)) return { kind: "ignored", reason: "duplicate delivery" };
  if (command.verb === "cancel") {
    const count = services.queue.cancel(key);
    await ctx.api.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: facts.owner, repo: facts.repo, issue_number: facts.number, body: count ? `🛑 Cancelled ${count} request${count === 1 ? "" : "s"}.` : "There is nothing to cancel here." });
    return { kind: "cancelled", count };
  }
  const request = await buildRequest(ctx, jobId, facts, command, config, services, botLogin);
  if ("error" in request) {
    await ctx.api.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: facts.owner, repo: facts.repo, issue_number: facts.number, body: `😕 ${request.error}` });
    return { kind: "replied", reason: request.error };
  }
  await react(ctx.api, facts, "eyes").catch((error: unknown) => log.warn({ err: error }, "reaction failed"));
  request.statusCommentId = await ensureComment(ctx.api, { ...where, marker: runMarker(request.jobId), botLogin, body: renderStage("queued", request) });
  const queued = services.queue.enqueue({ id: jobId, key, data: request });
  log.info({ job: request.jobId, queued, verb: request.verb }, queued ? "job enqueued" : "duplicate delivery ignored");
  return queued ? { kind: "enqueued", jobId: request.jobId } : { kind: "ignored", reason: "duplicate delivery" };
}

async function buildRequest(ctx: EventContext, jobId: string, facts: EventFacts, command: Exclude<Command, { verb: "help" | "invalid" | "cancel" }>, config: RepoConfig, services: AppServices, botLogin: string): Promise<RunRequest | { error: string }> {
  let verb: RunRequest["verb"] = command.verb === "retry" ? "run" : command.verb;
  let text = "text" in command ? command.text : "";
  let flags = "flags" in command ? command.flags : { files: [] };
  if (command.verb === "retry") {
    const comments = await listComments(ctx.api, { owner: facts.owner, repo: facts.repo, issueNumber: facts.number });
    const last = comments.filter((c) => c.user === botLogin).map((c) => readRequestMarker(c.body)).filter((r) => r !== null).at(-1);
    if (!last) return { error: "There is no earlier request of mine here to retry." };
    verb = last.verb;
    text = last.text;
    flags = {
      files: command.flags.files.length ? command.flags.files : last.files,
      editFormat: command.flags.editFormat ?? (last.editFormat as typeof flags.editFormat),
      model: command.flags.model ?? last.model,
    };
  }
  const resolved = resolveSettings(config, flags, services.defaults);
  if (!resolved.ok) return { error: resolved.message };
  let target: RunTarget;
  if (facts.isPullRequest) {
    const pr = (await ctx.api.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { owner: facts.owner, repo: facts.repo, pull_number: facts.number })).data;
    const head = { number: facts.number, headRef: String(pr.head.ref), headSha: String(pr.head.sha), headCloneUrl: String(pr.head.repo?.clone_url ?? facts.cloneUrl), isFork: pr.head.repo?.full_name !== `${facts.owner}/${facts.repo}` };
    target = facts.review ? { kind: "review-comment", ...head, ...facts.review } : { kind: "pull-request", ...head };
  } else {
    if (verb === "undo") return { error: "`undo` works on pull requests: it reverts my last commit there." };
    target = { kind: "issue", number: facts.number, title: facts.title };
  }
  const untrusted = [{ label: `${facts.isPullRequest ? "pull request" : "issue"} #${facts.number}: title and description`, text: `${facts.title}\n\n${facts.body}`.trim() }];
  if (facts.review) untrusted.push({ label: `review comment on ${facts.review.path}${facts.review.line ? ` line ${facts.review.line}` : ""}: the diff hunk it refers to`, text: facts.review.diffHunk });
  const files = [...new Set([...flags.files, ...(facts.review ? [facts.review.path] : [])])];
  return {
    jobId,
    deliveryId: ctx.id,
    owner: facts.owner,
    repo: facts.repo,
    installationId: facts.installationId,
    cloneUrl: facts.cloneUrl,
    defaultBranch: facts.defaultBranch,
    target,
    verb,
    message: text,
    untrustedContext: untrusted,
    files,
    requester: { login: facts.sender.login, ...(facts.sender.id ? { id: facts.sender.id } : {}) },
    ...(facts.reactTo.kind === "issue-comment" ? { triggerCommentId: facts.reactTo.id } : {}),
    settings: resolved.settings,
  };
}

async function react(api: GitHubApi, facts: EventFacts, content: string): Promise<void> {
  const t = facts.reactTo;
  const base = { owner: facts.owner, repo: facts.repo, content };
  if (t.kind === "issue") await api.request("POST /repos/{owner}/{repo}/issues/{issue_number}/reactions", { ...base, issue_number: facts.number });
  else if (t.kind === "issue-comment") await api.request("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", { ...base, comment_id: t.id });
  else await api.request("POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", { ...base, comment_id: t.id });
}

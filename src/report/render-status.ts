import type { CoderResult } from "../coder/types.js";
import { uncheckedReason } from "../coder/unchecked.js";
import { autofixMarker } from "./autofix-rounds.js";
import { summarizeFailures } from "../edits/reflection.js";
import type { RunOutcome } from "../run/run-outcome.js";
import { RUN_STAGES, type RunStage } from "../run-stages.js";
import type { RunRequest } from "../run/run-request.js";
import { capMarkdown, COMMENT_LIMIT } from "../github/cap-markdown.js";
import { renderChecksStatus } from "./render-checks-status.js";
import { requestMarker, runMarker, type RequestRef, type StoredMode } from "../github/markers.js";
import { formatNumber } from "../format-number.js";
import { renderEgress } from "../egress/egress-report.js";

// Per-section caps keep every section visible in the common worst case; capMarkdown guards the total.
const CAP = { answer: 20_000, explanation: 12_000, output: 15_000, shell: 4_000, patch: 25_000 } as const;

/**
 * The run marker goes first (it is what finds the comment again); the request marker goes LAST, after the visible
 * text has been fitted into what is left of GitHub's limit, so neither can push the other, or the outcome, out.
 */
function withMarkers(req: RunRequest, visible: string): string {
  const stored = requestMarkerOf(req);
  // An automatic CI fix is counted from its status comment (ci.max_rounds), so the marker is there from "queued" on.
  const auto = req.context?.mode.kind === "fix-ci" ? req.context.mode.autofix : undefined;
  const head = `${runMarker(req.jobId)}\n${auto ? `${autofixMarker(auto.round, auto.sha)}\n` : ""}`;
  const fitted = capMarkdown(visible, COMMENT_LIMIT - 1_000 - head.length - stored.length);
  return `${head}${fitted}${stored ? `\n${stored}` : ""}`;
}

function requestMarkerOf(req: RunRequest): string {
  // A plan is run again by asking for a new one; an approved plan's run, by approving it again.
  if (req.verb === "undo" || req.verb === "plan" || req.plan) return "";
  const ref: RequestRef | undefined =
    req.target.kind === "review-comment"
      ? { kind: "review-comment", id: req.target.commentId }
      : req.triggerCommentId
        ? { kind: "issue-comment", id: req.triggerCommentId }
        : undefined;
  const mode = req.context?.mode;
  const stored: StoredMode | undefined =
    mode?.kind === "address-reviews"
      ? { kind: "address-reviews", threads: mode.threads, extra: mode.extra }
      : mode?.kind === "fix-ci"
        ? { kind: "fix-ci", extra: mode.extra }
        : undefined;
  return requestMarker(
    {
      verb: req.verb === "ask" ? "ask" : "run",
      text: req.message,
      files: req.files,
      editFormat: req.settings.editFormat,
      model: req.settings.model,
      ...(stored ? { mode: stored } : {}),
    },
    ref,
  );
}

function quote(text: string): string {
  const first = text.trim().split("\n")[0]!.slice(0, 200);
  return `> ${first.replace(/[<>]/g, (c) => (c === "<" ? "&lt;" : "&gt;"))}`;
}

/** The status comment while the run is in progress: the request and a stage line. */
export function renderStage(stage: RunStage, req: RunRequest): string {
  const at = RUN_STAGES.indexOf(stage);
  const line = RUN_STAGES.map((s, i) => (i < at ? `✅ ${s}` : i === at ? `⏳ **${s}**` : `▫️ ${s}`)).join(" · ");
  return withMarkers(
    req,
    `**aider-bot** is working on @${req.requester.login}'s request (model \`${req.settings.model}\`):\n\n${quote(req.message)}\n\n${line}\n`,
  );
}

/** The final status comment: outcome, files, links, usage, and collapsible details. */
export function renderFinal(outcome: RunOutcome, req: RunRequest): string {
  const parts: string[] = [];
  const result = "result" in outcome ? (outcome.result ?? null) : null;
  switch (outcome.kind) {
    case "pushed":
      // A run on a branch with no pull request (the Action's workflow_dispatch there) names the branch.
      parts.push(
        `🚀 Pushed [\`${outcome.sha.slice(0, 7)}\`](${outcome.url}) to ${req.target.kind === "branch" ? `\`${req.target.headRef}\`` : "this pull request"}.`,
      );
      if (outcome.result.outcome === "checks-failed") parts.push(stillFailing(outcome.result));
      break;
    case "pull-request":
      parts.push(`🚀 Opened #${outcome.pr.number} from \`${outcome.branch}\`: ${outcome.pr.url}`);
      if (outcome.result.outcome === "checks-failed") parts.push(stillFailing(outcome.result));
      break;
    case "patch":
      parts.push(
        outcome.reason
          ? `📎 I could not commit to this fork's branch: ${outcome.reason} Here is the change as a patch; apply it with \`git am\`:`
          : "📎 This pull request comes from a fork, which I cannot (and must not) push to. Here is the change as a patch; apply it with `git am`:",
        details("Patch", fenced(clip(outcome.patch, CAP.patch), "diff")),
      );
      break;
    case "answered":
      parts.push(result?.outcome === "no-changes" ? clip(result.answer.trim(), CAP.answer) : failureText(result!));
      break;
    case "planned":
      parts.push(`📋 Plan (made on \`${outcome.sha.slice(0, 7)}\`):\n\n${clip(outcome.plan.trim(), CAP.answer)}`);
      break;
    case "reverted":
      parts.push(
        `↩️ Reverted [\`${outcome.revertedSha.slice(0, 7)}\`](${outcome.url}) with a new commit \`${outcome.sha.slice(0, 7)}\`.`,
      );
      break;
    case "nothing-to-do":
    case "refused":
      parts.push(`😕 ${outcome.message}`);
      break;
    case "cancelled":
      parts.push(
        outcome.reason === "shutdown"
          ? "⏸ The app restarted while this ran; nothing was pushed. It stays queued and starts again from a fresh clone when the app is back."
          : "🛑 Cancelled on request; nothing was pushed.",
      );
      break;
    case "error":
      parts.push(
        `😕 The run failed: ${outcome.message}\n\nRun \`/aider retry\` to try again. If it keeps failing, check the app's logs.`,
      );
      break;
    case "not-pushed": {
      const unchecked = req.settings.requireGreenChecks ? uncheckedReason(outcome.result) : null;
      if (unchecked) {
        parts.push(
          `😕 Nothing was pushed: the change is **unchecked** (${unchecked}), and this repository requires green checks (\`require_green_checks: true\`).`,
        );
        break;
      }
      parts.push(failureText(outcome.result));
      if (outcome.result.outcome === "checks-failed" && req.settings.requireGreenChecks) {
        parts.push("Nothing was pushed: this repository requires green checks (`require_green_checks: true`).");
      }
      break;
    }
  }
  const checks =
    result && req.verb !== "ask" ? renderChecksStatus(result, outcome.checks, req.settings.autoTest) : null;
  if (checks?.headline) parts.push(checks.headline);
  if ("signing" in outcome && outcome.signing) parts.push(outcome.signing);
  if (result) {
    parts.push(...resultDetails(result, outcome.elapsedMs));
    if (checks?.details) parts.push(checks.details);
  } else parts.push(`<sub>${(outcome.elapsedMs / 1000).toFixed(1)} s</sub>`);
  if (outcome.context) parts.push(outcome.context);
  return withMarkers(req, parts.join("\n\n"));
}

function stillFailing(r: Extract<CoderResult, { outcome: "checks-failed" }>): string {
  const cannot = couldNotJudge(r.report);
  if (cannot)
    return `⚠️ ${cannot}, so this change is **unchecked**. It was pushed because this repository does not set \`require_green_checks\`; review it before merging.`;
  return `⚠️ The ${r.report.kind} check${r.report.command ? ` \`${r.report.command}\`` : ""} still fails on this commit. It was pushed because this repository does not set \`require_green_checks\`; review it before merging.`;
}

/**
 * What stopped the checks when none of them judged the code: the sandbox never ran a command (a failed image pull),
 * a setup step failed, or a tool could not run. Null for a check that ran and failed on the code.
 */
function couldNotJudge(report: Extract<CoderResult, { outcome: "checks-failed" }>["report"]): string | null {
  const command = report.command ? ` \`${report.command}\`` : "";
  if (report.notRun) return `The repository's commands were not run: ${report.notRun.replace(/\.$/, "")}`;
  if (report.kind === "setup") return `The setup command${command} failed`;
  if (report.environmentError && !report.timedOut) return `The ${report.kind} command${command} could not run`;
  return null;
}

function failureText(r: CoderResult): string {
  switch (r.outcome) {
    case "no-changes":
      return `🤷 No changes were made.${r.answer.trim() ? `\n\n${clip(r.answer.trim(), CAP.answer)}` : ""}`;
    case "edit-failed": {
      const files = [...new Set(r.failures.map((f) => `\`${f.path || "(no file)"}\``))].join(", ");
      const attempts = `${r.reflections + 1} ${r.reflections === 0 ? "attempt" : "attempts"}`;
      const headline =
        r.failures.length > 0 && r.failures.every((f) => f.reason === "no-match")
          ? `😕 The SEARCH block did not match ${files} after ${attempts}; nothing was pushed.`
          : `😕 The model's edits to ${files} could not be applied after ${attempts}; nothing was pushed.`;
      return `${headline}\n\n${clip(summarizeFailures(r.failures), CAP.output)}\n\nTry \`/aider retry --file PATH\` naming the files, or rephrase the request.`;
    }
    case "checks-failed": {
      const cannot = couldNotJudge(r.report);
      if (cannot)
        return `😕 ${cannot}: the repository's lint and tests could not judge the change, so it is **unchecked**. This is the environment's problem, not something an edit fixes; see the output below.`;
      return `😕 The ${r.report.kind} check${r.report.command ? ` \`${r.report.command}\`` : ""} still fails after ${r.reflections} ${r.reflections === 1 ? "reflection" : "reflections"}.`;
    }
    case "llm-error":
      // A refused reservation made no call; its message names the limit, the spend and the reset.
      if (r.errorKind === "spend-limit") return `🛑 ${r.message}`;
      return `😕 The model call failed: ${r.message}`;
    case "budget-exceeded":
      return `😕 Stopped: ${r.message} Raise \`budget\` in \`.github/aider.yml\` if this request needs more.`;
    case "timed-out":
      return `😕 ${r.message} Raise \`timeout\` in \`.github/aider.yml\` or split the request.`;
    case "changed":
      return "✅ Changes made.";
  }
}

function resultDetails(r: CoderResult, elapsedMs: number): string[] {
  const out: string[] = [];
  if ("editedFiles" in r && r.editedFiles.length) {
    out.push(`**Files changed**\n${r.editedFiles.map((f) => `- \`${f.path}\` +${f.added} −${f.removed}`).join("\n")}`);
  }
  if (r.filesAddedOnRequest?.length) {
    out.push(
      `**Files added at the model's request** (it named them after seeing the repo map)\n${r.filesAddedOnRequest.map((f) => `- \`${f}\``).join("\n")}`,
    );
  }
  if (r.checksSkipped)
    out.push(
      `⚠️ Lint, test and setup commands were **not run**: ${r.checksSkipped}. The change is **unchecked**; review it before merging.`,
    );
  const cost =
    r.costUsd === null
      ? r.tokens.prompt + r.tokens.completion > 0
        ? " · cost unknown (no price for this model)"
        : ""
      : ` · $${r.costUsd.toFixed(4)}`;
  const cached = r.tokens.cacheRead
    ? ` · ${formatNumber(r.tokens.cacheRead)} of ${formatNumber(r.tokens.prompt)} prompt tokens from cache`
    : "";
  const models = r.models?.length ? ` · answered by ${r.models.map((m) => `\`${m}\``).join(", ")}` : "";
  out.push(
    `<sub>${r.reflections} reflection${r.reflections === 1 ? "" : "s"} · ${formatNumber(r.tokens.prompt)} prompt + ${formatNumber(r.tokens.completion)} completion tokens${cached}${cost}${models} · ${(elapsedMs / 1000).toFixed(1)} s</sub>`,
  );
  if (r.explanation.trim() && r.outcome !== "no-changes")
    out.push(details("The model's explanation", clip(r.explanation.trim(), CAP.explanation)));
  if (r.outcome === "checks-failed")
    out.push(details(`Output of ${r.report.command || r.report.kind}`, fenced(clip(r.report.output, CAP.output))));
  if (r.sandbox) out.push(details("Sandbox", sandboxText(r), r.network ? renderEgress(r.network) : undefined));
  if (r.shell.length)
    out.push(
      details("Shell commands the model suggested (not run)", fenced(clip(r.shell.join("\n\n"), CAP.shell), "sh")),
    );
  return out;
}

/**
 * Where the repository's commands ran, as it happened: a container or bubblewrap only when a command ran in it; a
 * sandbox that never ran one (a failed image pull) says so and why; none reached says none ran.
 */
function sandboxText(r: CoderResult): string {
  const mode = r.sandbox!;
  if (mode !== "bubblewrap" && mode !== "off" && !mode.startsWith("container ("))
    return `Repository commands were not run: the sandbox is ${mode}.`;
  const runs = r.checkRuns ?? [];
  const ran = runs.some((c) => c.status !== "not-run" && !c.notRun);
  const refused = runs.find((c) => c.notRun);
  if (refused && !ran) return `Repository commands were not run: ${(refused.note ?? "").replace(/\.$/, "")}.`;
  if (!ran) return "No repository command ran in this run.";
  return mode === "bubblewrap"
    ? "Repository commands ran in a bubblewrap sandbox."
    : mode === "off"
      ? "Repository commands ran without a sandbox (`AIDER_BOT_SANDBOX=off`)."
      : containerSentence(mode);
}

/** `container (image python:3.12, from …)` → "Repository commands ran in a container of `python:3.12` (image from …)." */
function containerSentence(mode: string): string {
  const m = /^container \(image (\S+?)(?:, from (.*))?\)$/s.exec(mode);
  if (!m) return `Repository commands ran in a ${mode}.`;
  return `Repository commands ran in a container of \`${m[1]}\`${m[2] ? ` (image from ${m[2]})` : ""}.`;
}

/** Keep the head of long text and say how much was left out. */
const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;

/** A code block whose fence is longer than any backtick run inside, so tool output cannot end it early. */
function fenced(text: string, lang = ""): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

const details = (summary: string, body: string, more?: string) =>
  `<details><summary>${summary}</summary>\n\n${body}${more ? `\n\n${more}` : ""}\n\n</details>`;

/** Why a job ended (or paused) without its run reporting: told by the app, not by the run. */
export type Interruption =
  /** Its worker died (crash, out of memory, lost machine) on every attempt. */
  | { kind: "worker-lost"; message: string }
  /** It threw on every attempt before it could report (an outage, a bug). */
  | { kind: "crashed"; message: string }
  /** The app shut down while it ran: it goes back in the queue and starts again from a fresh clone. */
  | { kind: "requeued" }
  /** The app shut down while it waited: it stays queued. */
  | { kind: "waiting" };

/** The status comment of a job the app had to stop or give up; offers `/<command> retry` when nothing more happens. */
export function renderInterrupted(why: Interruption, req: RunRequest, command: string): string {
  const retry = `Run \`/${command} retry\` to start it again.`;
  const text =
    why.kind === "worker-lost"
      ? `💥 This run was interrupted: the process running it stopped before it finished (${why.message}). Nothing was pushed after that point, and nothing more happens on its own. ${retry}`
      : why.kind === "crashed"
        ? `😕 The run failed before it could report: ${why.message}\n\n${retry} If it keeps failing, check the app's logs.`
        : why.kind === "requeued"
          ? "⏸ The app restarted while this ran; nothing was pushed. It stays queued and starts again from a fresh clone when the app is back."
          : "⏸ The app is restarting; this request stays queued and runs when the app is back.";
  return withMarkers(req, text);
}

import { randomUUID } from "node:crypto";
import type { RunOutcome } from "../run/run-outcome.js";
import type { RunRequest } from "../run/run-request.js";
import { targetLabel, threadNumber } from "../run/run-target.js";

/** One finished run of this workflow step. */
export interface ActionRun {
  request: RunRequest;
  outcome: RunOutcome;
  /** The final status text (the status comment's last body). */
  finalBody: string;
}

/** What the step did: runs (a schedule may start several), or why none started. */
export interface ActionResult {
  /** The last run's outcome kind, or ignored / replied / unauthorized / cancelled / refused / error when none ran. */
  outcome: string;
  reason?: string;
  runs: ActionRun[];
}

/** The step's outputs (action.yml `outputs`), from the last run; numbers as text, "" when there is none. */
export function actionOutputs(
  result: ActionResult,
): Record<"outcome" | "commit-sha" | "pr-number" | "tokens" | "cost", string> {
  const last = result.runs.at(-1);
  const o = last?.outcome;
  const sha = o && (o.kind === "pushed" || o.kind === "pull-request" || o.kind === "reverted") ? o.sha : "";
  const thread = last && threadNumber(last.request.target);
  const pr =
    !o || !last
      ? ""
      : o.kind === "pull-request"
        ? String(o.pr.number)
        : (o.kind === "pushed" || o.kind === "reverted") && thread !== undefined
          ? String(thread)
          : "";
  let tokens = 0;
  let cost: number | null = null;
  for (const run of result.runs) {
    const r = "result" in run.outcome ? run.outcome.result : undefined;
    if (!r) continue;
    tokens += r.tokens.prompt + r.tokens.completion;
    if (r.costUsd !== null) cost = (cost ?? 0) + r.costUsd;
  }
  return {
    outcome: result.outcome,
    "commit-sha": sha,
    "pr-number": pr,
    tokens: result.runs.length ? String(tokens) : "",
    cost: cost === null ? "" : String(Number(cost.toFixed(6))),
  };
}

/**
 * `$GITHUB_OUTPUT` text: `name<<DELIMITER` / value / `DELIMITER` for every output, safe for multi-line values; the
 * delimiter is random and checked against the values, so no value can end its block early and set another output.
 */
export function formatOutputFile(outputs: Record<string, string>, delimiter = `ghadelimiter_${randomUUID()}`): string {
  for (const [name, value] of Object.entries(outputs)) {
    if (value.includes(delimiter) || name.includes(delimiter))
      throw new Error(`output ${name} contains the delimiter; use another one`);
  }
  return Object.entries(outputs)
    .map(([name, value]) => `${name}<<${delimiter}\n${value}\n${delimiter}\n`)
    .join("");
}

/** The job summary: each run's final status, or why nothing ran. */
export function renderSummary(result: ActionResult): string {
  const lines = ["## aider-bot", ""];
  if (result.runs.length === 0)
    lines.push(`No run: **${result.outcome}**${result.reason ? ` — ${result.reason}` : ""}`, "");
  for (const run of result.runs) {
    const where = ` on ${targetLabel(run.request.target)}`;
    lines.push(`### ${run.outcome.kind}${where}`, "", run.finalBody.trim(), "");
  }
  return `${lines.join("\n")}\n`;
}

/** A workflow command's message (`::error::…`): `%`, CR and LF escaped as the runner expects. */
export function escapeCommandData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

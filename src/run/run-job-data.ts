import type { JobKind } from "../jobs/job.js";
import type { RunRequest } from "./run-request.js";
import type { ReactionTarget } from "../github/repo-github.js";

/**
 * Everything a run job carries, built once when its request is triaged: what to run, and where on GitHub its
 * feedback goes. The run job never looks these up again (nothing is rebuilt from a clone URL or read back with `!`).
 */
export interface RunJobData {
  req: RunRequest;
  /** The status comment made "queued" at triage; every later status edit goes to it. */
  statusCommentId: number;
  /** What got 👀 at triage and gets 🚀 or 😕 at the end. */
  reactTo: ReactionTarget;
  /** The repository's web address as the webhook payload gave it (`html_url`), for commit links. */
  webUrl: string;
  /** The repository's command word (`trigger.command`), for the messages that name a command. */
  command: string;
  /**
   * The Check Run started at triage (a run on a PR), so that whoever ends the job — the run, or the app when the run
   * was lost — completes it. Absent: none (an issue, `ask`, or no `checks` permission).
   */
  checkRunId?: number;
}

/** A run job as the engine records it: the delivery id dedupes, the key (`owner/repo#n`) serialises. */
export interface RunJobInput {
  id: string;
  key: string;
  installationId: number;
  kind: JobKind;
  data: RunJobData;
}

/**
 * Where triage puts run jobs: the app's durable job engine (or, in the Action, a capture that runs the job in the
 * foreground). Shaped like the engine's own `enqueue`/`cancel`.
 */
export interface RunQueue {
  /** False when this job id was seen before (a redelivery, a replay after a restart): nothing is queued. */
  enqueue(job: RunJobInput): Promise<boolean>;
  /** Abort the key's running job wherever it runs and drop its queued ones. */
  cancel(key: string): Promise<{ dropped: number; aborted: number }>;
}

/** The reaction subject of a request: the comment that carried the command, or the issue of a label run. */
export function reactionSubject(facts: {
  number: number;
  reactTo: { kind: "issue-comment" | "review-comment"; id: number } | { kind: "issue" };
}): ReactionTarget {
  return facts.reactTo.kind === "issue" ? { kind: "issue", number: facts.number } : facts.reactTo;
}

import type { Logger } from "pino";
import { renderTranscript } from "../../coder/transcript/render-transcript.js";
import type { TranscriptEvent } from "../../coder/transcript/transcript-event.js";
import type { RunGitHub } from "../run-ports.js";
import type { RunRequest } from "../run-request.js";
import { targetLabel } from "../run-target.js";

/** Where a run's whole transcript is kept for operators (`aider-bot transcript <run-id>`). */
export interface TranscriptStore {
  save(runId: string, text: string): Promise<void>;
}

/** GitHub's limit on a Check Run's `output.text`. */
export const CHECK_TEXT_LIMIT = 65_535;
/** The longest transcript kept in the store (a run's requests repeat its files; this bounds a pathological one). */
const STORED_LIMIT = 4_000_000;

/**
 * A run's transcript, redacted: kept whole in the store, and fitted to the Check Run's limit for its
 * detailed output (`text`, null without a Check Run); `line` is the status comment's link to it. A failure to
 * store is logged; it never fails the run.
 */
export async function publishTranscript(args: {
  req: RunRequest;
  deps: { github: RunGitHub; redact?(text: string): string; transcripts?: TranscriptStore };
  checkRunId: number | null;
  events: readonly TranscriptEvent[];
  log: Logger;
}): Promise<{ line: string | null; text: string | null }> {
  const { req, deps, checkRunId, events } = args;
  if (events.length === 0) return { line: null, text: null };
  const title = `Run transcript · ${req.owner}/${req.repo} ${targetLabel(req.target)} · run ${req.jobId}`;
  const { redact } = deps;
  const opts = { title, ...(redact ? { redact } : {}) };
  const stored = deps.transcripts
    ? await deps.transcripts.save(req.jobId, renderTranscript(events, { ...opts, limit: STORED_LIMIT })).then(
        () => true,
        (error: unknown) => (args.log.warn({ err: error }, "could not store the run's transcript"), false),
      )
    : false;
  const url = checkRunId !== null ? deps.github.checkRunUrl?.(checkRunId) : undefined;
  const cli = stored ? ` (operators: \`aider-bot transcript ${req.jobId}\`)` : "";
  const line = url
    ? `📜 [Run transcript](${url}): what the model was sent and answered, each edit and check${cli}.`
    : stored
      ? `📜 Run \`${req.jobId}\`: its transcript is kept by the app${cli}.`
      : null;
  return {
    line,
    text: checkRunId === null ? null : renderTranscript(events, { ...opts, limit: CHECK_TEXT_LIMIT }),
  };
}

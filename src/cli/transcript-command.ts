import os from "node:os";
import path from "node:path";
import { sourceEnv } from "../config/env.js";
import { readTranscript, transcriptDir } from "../app/transcript-store.js";
import { UsageError } from "./exit-code.js";

export interface TranscriptCommandOptions {
  runId: string;
  /** The app's cache dir (default: AIDER_BOT_CACHE_DIR, else the system's temporary directory's aider-bot-cache, as the app). */
  cacheDir?: string;
}

/**
 * `aider-bot transcript <run-id>`: print a run's stored transcript — the redacted story of what the model
 * was sent and answered, each edit and check — as the app that ran it kept it. Exit 1 when there is none.
 */
export async function transcriptCommand(
  opts: TranscriptCommandOptions,
  env: Readonly<Record<string, string | undefined>> = sourceEnv(),
  out: { write(s: string): unknown; error(s: string): unknown } = {
    write: (s) => process.stdout.write(s),
    error: (s) => process.stderr.write(s),
  },
): Promise<number> {
  if (!opts.runId.trim())
    throw new UsageError(
      "transcript needs a run id (the id in the status comment's transcript line, or the delivery id in the logs)",
    );
  const root = opts.cacheDir ?? env.AIDER_BOT_CACHE_DIR ?? path.join(os.tmpdir(), "aider-bot-cache");
  const dir = transcriptDir(root);
  const text = await readTranscript(dir, opts.runId.trim());
  if (text === null) {
    out.error(
      `No transcript of run ${opts.runId} in ${dir}: the run did not happen on this host's cache dir, or it is older than the retention (500 runs, 14 days). Pass --cache-dir if the app uses another.\n`,
    );
    return 1;
  }
  out.write(text.endsWith("\n") ? text : `${text}\n`);
  return 0;
}

import type { MirrorPlace } from "../workspace/git-mirror.js";
import { createYoungHandoff } from "./young-handoff.js";

/** What a run's checkout is made from: the repository's mirror, and the branch and URL it fetches. */
export interface MirrorSource {
  place: MirrorPlace;
  url: string;
  branch: string;
}

/**
 * A run's branch fetched into the repository's mirror at triage, while the job is queued and its process starts,
 * so the job's checkout (see workspace/git-mirror's `cloneFromMirror`, `fetched`) waits for that fetch instead of
 * starting its own ~50–100 ms later. Started only for a request triage has authorised and queues, with the job's own
 * git token (minted at triage, see job-token-prefetch): a stranger's comment never makes the bot fetch anything.
 *
 * Handed out once, and only while young (`maxAgeMs`, default 30 s): a job that waited longer in the queue fetches
 * for itself, as the branch may have moved meanwhile (a run works on the branch's tip when it starts, as before).
 * A job that does not follow (a duplicate, a failed status comment) is dropped: the fetch under way still ends and
 * releases the mirror, and leaves in it only what any run of the branch leaves there.
 */
export interface MirrorPrefetch {
  /** Start the fetch once `gitToken` resolves; nothing for a run whose checkout is not made from a mirror. */
  start(jobId: string, source: MirrorSource | null, gitToken: Promise<string> | null): void;
  /** The fetch started for this job (its tip, or null when it fetched nothing), at most once; null: none to wait for. */
  take(jobId: string): Promise<string | null> | null;
  /** Forget a job's fetch (it was not queued). */
  drop(jobId: string): void;
}

export function createMirrorPrefetch(
  fetch: (req: { url: string; branch: string; token: string }, place: MirrorPlace) => Promise<string | null>,
  options: { now?: () => number; maxAgeMs?: number; maxEntries?: number } = {},
): MirrorPrefetch {
  const held = createYoungHandoff<Promise<string | null>>({ ...options, maxAgeMs: options.maxAgeMs ?? 30_000 });
  return {
    start(jobId, source, gitToken) {
      held.drop(jobId);
      if (!source || !gitToken) return;
      // Never rejects: a failed mint or fetch is null, and the job then fetches (and reports) on its own.
      const fetched = gitToken.then(
        (token) => fetch({ url: source.url, branch: source.branch, token }, source.place).catch(() => null),
        () => null,
      );
      held.put(jobId, fetched);
    },
    take: (jobId) => held.take(jobId),
    drop: (jobId) => held.drop(jobId),
  };
}

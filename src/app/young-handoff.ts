/**
 * What triage starts for a job in this process (its tokens, its branch's fetch) and the job takes when it starts:
 * each value is handed out once, and only while young (`maxAgeMs`); a job that waited longer makes its own. Jobs
 * triaged here but run elsewhere or never (cancelled, a duplicate) are forgotten once old, and a burst of queued runs
 * holds at most `maxEntries` values, the oldest going first.
 */
export interface YoungHandoff<T> {
  /** Keep `value` for the job; a second put for the same job replaces the first. */
  put(jobId: string, value: T): void;
  /** The job's value, at most once: null when there is none, it is too old, or `fits` refuses it. */
  take(jobId: string, fits?: (value: T) => boolean): T | null;
  /** The job's value without handing it out (young or not). */
  peek(jobId: string): T | null;
  /** Forget the job's value (it was not queued). */
  drop(jobId: string): void;
}

export function createYoungHandoff<T>(options: {
  now?: () => number;
  maxAgeMs: number;
  maxEntries?: number;
}): YoungHandoff<T> {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 200;
  const entries = new Map<string, { at: number; value: T }>();
  const young = (e: { at: number }) => now() - e.at <= options.maxAgeMs;
  const purge = () => {
    for (const [id, e] of entries) if (!young(e)) entries.delete(id);
    while (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
  };
  return {
    put(jobId, value) {
      purge();
      entries.delete(jobId);
      entries.set(jobId, { at: now(), value });
    },
    take(jobId, fits) {
      const e = entries.get(jobId);
      if (!e) return null;
      entries.delete(jobId);
      return young(e) && (!fits || fits(e.value)) ? e.value : null;
    },
    peek(jobId) {
      return entries.get(jobId)?.value ?? null;
    },
    drop(jobId) {
      entries.delete(jobId);
    },
  };
}

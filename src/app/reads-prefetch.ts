import type { RecordedRead } from "../github/read-ahead.js";
import type { RunRequest } from "../run/run-request.js";
import { createYoungHandoff } from "./young-handoff.js";

/** A job's reads made ahead, asked by key (see github/read-ahead's `readKey`): null when there is no answer for it. */
export type ReadAnswers = (key: string) => Promise<RecordedRead | null>;

/**
 * The GitHub reads a job makes as it starts (its check plan from the default branch, its pull request's or issue's
 * context, its instruction files, in container mode the devcontainer) made at triage instead, right where the job's
 * tokens are minted, with the job's own API token, while the job is queued and its process starts. The job asks for
 * each read as it makes it (over its process's IPC) and gets the answer triage recorded, or waits for it while it is
 * on its way; a read triage did not make, or that failed (anything but an answer or a 404), the job makes itself.
 *
 * Same rules as the tokens and the fetch into the mirror: started only for a request triage has authorised and
 * queues; handed out once, and only while young (`maxAgeMs`, default 10 s: a job that waited longer reads GitHub as
 * it is when it starts, as before); each recorded read answers one request. A job that does not follow is dropped.
 * At most `maxWaiting` jobs have reads made and not yet taken (the App passes its run concurrency).
 */
export interface ReadsPrefetch {
  /** Start the job's reads once `apiToken` resolves (nothing without one). */
  start(req: RunRequest, apiToken: Promise<string> | null): void;
  /** The job's reads, at most once; null: none made (or too old), the job reads everything itself. */
  take(jobId: string): ReadAnswers | null;
  /** Forget a job's reads (it was not queued). */
  drop(jobId: string): void;
}

/** What reads a job's inputs: `onRead` sees each read's key as it starts and its answer (see read-ahead's recordReads). */
export type ReadJobInputs = (
  req: RunRequest,
  apiToken: string,
  onRead: (key: string, answer: Promise<RecordedRead | null>) => void,
) => Promise<unknown>;

export function createReadsPrefetch(
  read: ReadJobInputs,
  options: { now?: () => number; maxAgeMs?: number; maxEntries?: number; maxWaiting?: number } = {},
): ReadsPrefetch {
  const now = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? 10_000;
  const held = createYoungHandoff<ReadBook>({ ...options, maxAgeMs });
  // Jobs whose reads were made and not yet taken: a burst of runs beyond the ones that can start at once would have
  // its reads made for nothing (each job waits for a slot longer than the reads stay young), so past `maxWaiting`
  // (the App's run concurrency) triage reads nothing and those jobs read for themselves.
  const waiting = new Map<string, number>();
  const busy = () => {
    for (const [id, at] of waiting) if (now() - at > maxAgeMs) waiting.delete(id);
    return waiting.size >= (options.maxWaiting ?? Infinity);
  };
  return {
    start(req, apiToken) {
      held.drop(req.jobId);
      waiting.delete(req.jobId);
      if (!apiToken || busy()) return;
      waiting.set(req.jobId, now());
      const book = createReadBook();
      // Never rejects: a failed mint or read leaves the book without that answer, and the job reads it itself.
      void apiToken
        .then((token) => read(req, token, book.add))
        .catch(() => undefined)
        .finally(book.end);
      held.put(req.jobId, book);
    },
    take: (jobId) => {
      waiting.delete(jobId);
      return held.take(jobId)?.answer ?? null;
    },
    drop: (jobId) => {
      waiting.delete(jobId);
      held.drop(jobId);
    },
  };
}

/** The reads made for one job, by key: each recorded answer is handed out once. */
interface ReadBook {
  add(key: string, answer: Promise<RecordedRead | null>): void;
  /** No read starts after this (the answers under way still come). */
  end(): void;
  answer: ReadAnswers;
}

/**
 * A job's reads as triage makes them. A key the job asks for before triage's reads got to it (they run a chain:
 * the root listing, then the files it names) is waited for until it starts, or until triage's reads are over.
 */
export function createReadBook(): ReadBook {
  const answers = new Map<string, Promise<RecordedRead | null>[]>();
  const waiting = new Map<string, ((answer: Promise<RecordedRead | null> | null) => void)[]>();
  let ended = false;
  const takeOne = (key: string) => {
    const queue = answers.get(key);
    const first = queue?.shift() ?? null;
    if (queue && queue.length === 0) answers.delete(key);
    return first;
  };
  return {
    add(key, answer) {
      // An answer nobody takes is never an unhandled rejection (the recorder's answers do not reject anyway).
      answer.catch(() => undefined);
      const waiter = waiting.get(key)?.shift();
      if (waiter) return waiter(answer);
      answers.set(key, [...(answers.get(key) ?? []), answer]);
    },
    end() {
      ended = true;
      for (const list of waiting.values()) for (const waiter of list) waiter(null);
      waiting.clear();
    },
    async answer(key) {
      const now = takeOne(key);
      if (now || ended) return now ? now.catch(() => null) : null;
      const later = new Promise<Promise<RecordedRead | null> | null>((resolve) =>
        waiting.set(key, [...(waiting.get(key) ?? []), resolve]),
      );
      // Awaiting a promise that resolved to a promise awaits that one too.
      return later.then((answer) => answer ?? null).catch(() => null);
    },
  };
}

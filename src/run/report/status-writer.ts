/** The status comment's writes of one run, coalesced. */
export interface StatusWriter {
  /** A new stage: written at once when the last write is `minGapMs` old, else the latest one is written then. */
  stage(body: string): void;
  /** The final body: drops a pending stage, waits for a write in flight, then writes (errors go to `onError`). */
  final(body: string): Promise<void>;
}

/**
 * A run goes through up to eight stages in a few seconds; each one as its own comment edit would spend the
 * installation's write budget (GitHub's secondary limits count writes) on text nobody reads in time. So stage edits
 * are at most one per `minGapMs`, always showing the latest stage, in order, and never after the final one.
 */
export function createStatusWriter(
  write: (body: string) => Promise<void>,
  options: { minGapMs: number; now: () => number; onError: (error: unknown) => void },
): StatusWriter {
  let lastWrite = Number.NEGATIVE_INFINITY;
  let pending: string | null = null;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  const send = (body: string) => {
    lastWrite = options.now();
    chain = chain.then(() => write(body)).catch(options.onError);
  };
  const flush = () => {
    timer = undefined;
    if (closed || pending === null) return;
    const body = pending;
    pending = null;
    send(body);
  };
  return {
    stage(body) {
      if (closed) return;
      const wait = lastWrite + options.minGapMs - options.now();
      if (wait <= 0) {
        // The gap has passed (a pending timer is late): this newer stage replaces the pending one and goes now.
        clearTimeout(timer);
        timer = undefined;
        pending = null;
        return send(body);
      }
      pending = body;
      timer ??= setTimeout(flush, Math.max(0, wait));
      timer.unref?.();
    },
    async final(body) {
      closed = true;
      clearTimeout(timer);
      pending = null;
      await chain;
      await write(body).catch(options.onError);
    },
  };
}

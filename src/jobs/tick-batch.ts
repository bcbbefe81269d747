/** One item's outcome in a batch: its own value or its own error. */
export type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

/**
 * Gathers the calls made in one turn of the event loop and runs `flush` once over all of them; each caller gets its
 * own outcome. `flush` returns one outcome per item, in order; if it throws, every caller of that batch gets the
 * error. Calls made while a batch is being flushed form the next batch (flushes may overlap: each runs on the turn
 * after its first call). At `maxSize` items a batch is flushed on that turn, and the next call starts a new one.
 *
 * Why a turn: deliveries read from sockets in the same poll phase arrive in one turn, and `setImmediate` runs just
 * after that phase, so a storm's burst becomes one batch without holding any call back for a timer.
 */
export function createTickBatch<I, O>(
  flush: (items: I[]) => Promise<Settled<O>[]>,
  maxSize = 256,
): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve: (value: O) => void; reject: (error: unknown) => void };
  let batch: Waiting[] = [];
  const run = (waiting: Waiting[]) => {
    flush(waiting.map((w) => w.item)).then(
      (outcomes) =>
        waiting.forEach((w, i) => {
          const o = outcomes[i];
          if (!o) w.reject(new Error("the batch returned no outcome for this item"));
          else if (o.ok) w.resolve(o.value);
          else w.reject(o.error);
        }),
      (error: unknown) => waiting.forEach((w) => w.reject(error)),
    );
  };
  const take = () => {
    const waiting = batch;
    batch = [];
    if (waiting.length > 0) run(waiting);
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      batch.push({ item, resolve, reject });
      if (batch.length === 1) setImmediate(take);
      // Full: this batch goes now; its scheduled take finds the next batch (or nothing).
      if (batch.length >= maxSize) take();
    });
}

/**
 * Work a run starts beside its phases that uses its checkout folder and can outlive the phase that started it (the
 * base's checks, run while the model answers): stopped once the phases are over, and awaited before the folder is
 * removed. Otherwise its processes write into a folder being removed (`ENOTEMPTY`), and it runs on, and writes its
 * cache, after its job ended.
 */
export interface CheckoutWork {
  /** Stop now: kill what runs, start nothing more. */
  stop(): void;
  /** Settles once it is over (stopped or done); never rejects. */
  done: Promise<unknown>;
}

/** The checkout's work of one run: `keep` it as it starts; `end` stops all of it and resolves once all is over. */
export function createCheckoutWork(): { keep(work: CheckoutWork): void; end(): Promise<void> } {
  const kept: CheckoutWork[] = [];
  let ended = false;
  return {
    keep(work) {
      kept.push(work);
      // Started after the end (a phase that lost the race with a cancel): stopped at once, and still awaited.
      if (ended) work.stop();
    },
    async end() {
      ended = true;
      for (const work of kept) work.stop();
      await Promise.allSettled(kept.map((work) => work.done));
    },
  };
}

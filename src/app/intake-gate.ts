/**
 * Webhook answers come before background work in a process that does both (`serve` without Redis). One event loop
 * serves the webhook endpoint and the triage of earlier deliveries; in a storm, each triage step (YAML parsing,
 * request signing, queue commits) delayed the answers to the deliveries still arriving. Jobs wait on
 * {@link IntakeGate.quiet} before each start: while deliveries are being read, recorded and answered, they hold
 * back, for at most `maxWaitMs`, so a steady stream of deliveries cannot starve them.
 */
export interface IntakeGate {
  /** A delivery is being handled; call the returned function once it is answered. */
  enter(): () => void;
  /** Resolves when no delivery is being handled (at once when none is), or after `maxWaitMs`. */
  quiet(maxWaitMs?: number): Promise<void>;
  /** Deliveries being handled now. */
  inFlight(): number;
}

export function createIntakeGate(defaultMaxWaitMs = 500): IntakeGate {
  let inFlight = 0;
  let waiters: (() => void)[] = [];
  const release = () => {
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  };
  return {
    enter() {
      inFlight++;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        inFlight--;
        // Deliveries that arrived together are answered in the same turn: wake the jobs once that turn is over.
        if (inFlight === 0) setImmediate(() => inFlight === 0 && release());
      };
    },
    quiet(maxWaitMs = defaultMaxWaitMs) {
      if (inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, maxWaitMs);
        timer.unref();
        function done() {
          clearTimeout(timer);
          waiters = waiters.filter((w) => w !== done);
          resolve();
        }
        waiters.push(done);
      });
    },
    inFlight: () => inFlight,
  };
}

/**
 * Feedback before work: a run job waits while triage jobs are queued (each one's 👀 and "queued" comment is someone's
 * first sign they were heard), polling every `pollMs` for at most `maxWaitMs`. Without it, in a storm the runs'
 * processes (clones, Node starts, sandboxes) took the CPU the triage of later deliveries needed.
 */
export async function waitForTriage(
  queued: () => Promise<number>,
  options: { pollMs?: number; maxWaitMs?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const deadline = Date.now() + (options.maxWaitMs ?? 15_000);
  while (Date.now() < deadline && !options.signal?.aborted) {
    let waiting: number;
    try {
      waiting = await queued();
    } catch {
      return; // the queue could not be read: the run goes on rather than wait on a broken count
    }
    if (waiting === 0) return;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}

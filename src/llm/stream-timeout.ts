import { timeoutError } from "./classify-error.js";
import { LlmError } from "./llm-error.js";

/**
 * Run one request under our own timer, which covers the whole exchange and restarts at every chunk (`arm`), so a
 * stream that stalls half-way fails while a long answer that keeps flowing is never cut off. SDK timeouts stop at
 * the response headers. A request the timer or the caller's signal cut short fails as a timeout or as cancelled, even
 * when the SDK ended its stream quietly.
 */
export async function withStreamTimeout<T>(
  o: { timeoutMs: number; host: string; signal?: AbortSignal | undefined },
  run: (signal: AbortSignal, arm: () => void) => Promise<T>,
): Promise<T> {
  const timer = new AbortController();
  let timedOut = false;
  let handle: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(handle);
    handle = setTimeout(() => {
      timedOut = true;
      timer.abort();
    }, o.timeoutMs);
  };
  const signal = o.signal ? AbortSignal.any([o.signal, timer.signal]) : timer.signal;
  const interrupted = () =>
    timedOut
      ? timeoutError(o.host)
      : o.signal?.aborted
        ? new LlmError("aborted", "The model request was cancelled.")
        : null;
  arm();
  try {
    const result = await run(signal, arm);
    const stop = interrupted();
    if (stop) throw stop;
    return result;
  } catch (error) {
    throw interrupted() ?? error;
  } finally {
    clearTimeout(handle);
  }
}

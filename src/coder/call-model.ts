import type { ChatMessage, CompletionResult } from "../llm/types.js";
import { fail, ok, type Result } from "../result.js";
import type { CoderDeps } from "./coder-deps.js";

/** The reply, or an `LlmError` (anything carrying a string `kind`, which becomes `reason`): an expected failure, reported as the run's outcome. */
export type CallModelResult = Result<CompletionResult>;

export interface CallModelInput {
  deps: CoderDeps;
  model: string;
  messages: readonly ChatMessage[];
  round: number;
  /** Wall-clock time left for the run, or null for no limit: the call is aborted when it runs out. */
  remainingMs: number | null;
  /** Prompt caching: the run's key when on, null when off (no cache hints are sent). */
  cacheKey?: string | null;
}

function hasKind(err: unknown): err is Error & { kind: string } {
  return err instanceof Error && typeof (err as { kind?: unknown }).kind === "string";
}

/**
 * One completion, streaming deltas to `onProgress` and aborting on the run's signal or its remaining wall time.
 * Errors without a `kind` are programming errors and are rethrown.
 */
export async function callModel(input: CallModelInput): Promise<CallModelResult> {
  const { deps, round } = input;
  const signals = [
    deps.signal,
    input.remainingMs === null ? undefined : AbortSignal.timeout(Math.max(1, input.remainingMs)),
  ];
  const active = signals.filter((s): s is AbortSignal => s !== undefined);
  try {
    const reply = await deps.llm.complete({
      model: input.model,
      messages: input.messages,
      onDelta: (delta) => deps.onProgress?.({ stage: "thinking", round, delta }),
      signal: active.length ? AbortSignal.any(active) : undefined,
      ...(input.cacheKey === undefined
        ? {}
        : input.cacheKey === null
          ? { cache: false }
          : { cacheKey: input.cacheKey }),
    });
    return ok(reply);
  } catch (err) {
    if (!hasKind(err)) throw err;
    return fail(err.kind, err.message);
  }
}

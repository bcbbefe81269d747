import type { LlmErrorKind } from "./types.js";

/** A model-endpoint failure with a kind the coder maps to an outcome and a message a user can act on. */
export class LlmError extends Error {
  override name = "LlmError";
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
    readonly retryable = false,
  ) {
    super(message);
  }
}

import type { LlmErrorKind } from "./types.js";

export interface LlmErrorOptions {
  /** HTTP status of the endpoint's answer, when there was one. */
  status?: number;
  /** True for failures worth another attempt (429, 5xx overload, resets, timeouts). */
  retryable?: boolean;
}

/**
 * A model-endpoint failure: a `kind` the coder maps to an outcome, and a message a user can act on. Messages never
 * contain the API key.
 *
 * @example new LlmError("auth", "The model endpoint rejected the API key …", { status: 401 })
 */
export class LlmError extends Error {
  override name = "LlmError";
  readonly kind: LlmErrorKind;
  readonly status?: number;
  readonly retryable: boolean;

  constructor(kind: LlmErrorKind, message: string, options: LlmErrorOptions = {}) {
    super(message);
    this.kind = kind;
    if (options.status !== undefined) this.status = options.status;
    this.retryable = options.retryable ?? false;
  }
}

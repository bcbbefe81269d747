/**
 * A failed answer from a provider reached through a non-OpenAI SDK (Anthropic, Bedrock, Vertex), in one shape the
 * error classification and the retry delay read: the HTTP status (absent for an error event inside a stream), the
 * response's headers (`retry-after`), and the provider's error type (`overloaded_error`, `throttlingException`…).
 */
export class ProviderHttpError extends Error {
  override name = "ProviderHttpError";
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
  readonly type: string | undefined;

  constructor(
    message: string,
    o: { status?: number | undefined; headers?: Headers | undefined; type?: string | undefined },
  ) {
    super(message);
    this.status = o.status;
    this.headers = o.headers;
    this.type = o.type;
  }
}

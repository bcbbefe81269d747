/** Default of `context.instructions`: tokens the repository's instruction files may take in one request. */
export const DEFAULT_INSTRUCTIONS_TOKENS = 4_000;

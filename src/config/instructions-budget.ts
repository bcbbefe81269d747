/** Default of `context.instructions`: tokens the repository's instruction files may take in one request (issue #32). */
export const DEFAULT_INSTRUCTIONS_TOKENS = 4_000;

import type { components, operations } from "@octokit/openapi-types";

/**
 * The fake GitHub's answers, typed against GitHub's own description (`@octokit/openapi-types`, which also types the
 * app's gateway through Octokit). A fake answer may leave fields out — it sends what the app reads — but every field
 * it sends has GitHub's documented type, nested objects included, and a literal may not add a field GitHub does not
 * document: an answer that drifts from GitHub's shape fails `npm run typecheck` instead of passing a test GitHub
 * would fail.
 */
export type Documented<T> = T extends readonly (infer U)[]
  ? Documented<U>[]
  : T extends object
    ? { [K in keyof T]?: Documented<T[K]> }
    : T;

/** A documented object of the REST API by its schema name: `Shape<"issue">`. */
export type Shape<N extends keyof components["schemas"]> = Documented<components["schemas"][N]>;

/** The JSON body an operation answers with a status: `Reply<"issues/get", 200>`. */
export type Reply<O extends keyof operations, S extends keyof ResponsesOf<O>> = Documented<JsonOf<ResponsesOf<O>[S]>>;

type ResponsesOf<O extends keyof operations> = operations[O] extends { responses: infer R } ? R : never;
type JsonOf<R> = R extends { content: { "application/json": infer J } } ? J : never;

/** A route's answer for one documented operation: `answer("issues/get", 200, issueJson(…))`. */
export function answer<O extends keyof operations, S extends keyof ResponsesOf<O> & number>(
  _operation: O,
  status: S,
  json: Reply<O, S>,
): { status: S; json: Reply<O, S> } {
  return { status, json };
}

/** GitHub's error body (`basic-error`; 422s add `errors`, as its `validation-error` does). */
export function failure(
  status: number,
  message: string,
  more: Omit<Shape<"validation-error">, "message"> = {},
): { status: number; json: Shape<"validation-error"> } {
  return { status, json: { message, ...more } };
}

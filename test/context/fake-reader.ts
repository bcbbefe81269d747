import type { GitHubReader } from "../../src/context/fetch/github-reader.js";

/** A GitHub error as Octokit throws it (with `status`). */
export const httpError = (status: number, message = "Resource not accessible by integration") => Object.assign(new Error(message), { status });

type Answer = unknown | ((params: Record<string, unknown>) => unknown);

/**
 * A {@link GitHubReader} answering REST routes (by Octokit route string) and GraphQL operations (by a word of the
 * query) from tables; an Error value is thrown. Records every call, so tests can assert on what was (not) read.
 */
export function fakeReader(rest: Record<string, Answer>, graphql: Record<string, Answer> = {}) {
  const calls: { route: string; params: Record<string, unknown> }[] = [];
  const answer = (a: Answer, params: Record<string, unknown>) => {
    const v = typeof a === "function" ? (a as (p: Record<string, unknown>) => unknown)(params) : a;
    if (v instanceof Error) throw v;
    return v;
  };
  // A test double of the two methods the fetchers call; Octokit's full typed surface is not needed here.
  const api = {
    async request(route: string, params: Record<string, unknown> = {}) {
      calls.push({ route, params });
      if (!(route in rest)) throw httpError(404, `no fake for ${route}`);
      // Lists answer on page 1 only (a short page ends the paging).
      const page = Number(params.page ?? 1);
      const data = answer(rest[route], params);
      return { status: 200, data: page > 1 && Array.isArray(data) ? [] : data };
    },
    async graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
      const key = Object.keys(graphql).find((k) => query.includes(k));
      calls.push({ route: `graphql ${key ?? "?"}`, params: variables });
      if (!key) throw new Error("no fake for this GraphQL operation");
      return answer(graphql[key], variables) as T;
    },
  } as unknown as GitHubReader;
  return { api, calls };
}

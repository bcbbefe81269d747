import type { GitHubClient } from "../../src/github/github-client.js";
import { RepoGitHub } from "../../src/github/repo-github.js";
import { testOctokit } from "../helpers/test-octokit.js";

/** A GitHub error as Octokit throws it (with `status`). */
export const httpError = (status: number, message = "Resource not accessible by integration") =>
  Object.assign(new Error(message), { status });

type Answer = unknown | ((params: Record<string, unknown>) => unknown);

/**
 * A {@link GitHubClient} answering REST routes (by Octokit route string) and GraphQL operations (by a word of the
 * query) from tables; an Error value is thrown. Records every call, so tests can assert on what was (not) read.
 */
export function fakeReader(rest: Record<string, Answer>, graphql: Record<string, Answer> = {}) {
  const calls: { route: string; params: Record<string, unknown> }[] = [];
  const answer = (a: Answer, params: Record<string, unknown>) => {
    const v = typeof a === "function" ? (a as (p: Record<string, unknown>) => unknown)(params) : a;
    if (v instanceof Error) throw v;
    return v;
  };
  // A real Probot Octokit (typed `rest.*`, `paginate`, `graphql`) whose every request is answered from the tables:
  // the code under test goes through the same client surface as in production.
  const octokit = testOctokit();
  octokit.hook.wrap("request", async (_request, options) => {
    const {
      method,
      url,
      headers: _headers,
      request: _req,
      baseUrl: _base,
      mediaType: _media,
      ...params
    } = options as unknown as Record<string, unknown> & { method: string; url: string };
    if (url === "/graphql") {
      const {
        query,
        variables: nested,
        ...flat
      } = params as { query: string; variables?: Record<string, unknown> } & Record<string, unknown>;
      const variables = nested ?? flat;
      const key = Object.keys(graphql).find((k) => query.includes(k));
      calls.push({ route: `graphql ${key ?? "?"}`, params: variables });
      if (!key) throw new Error("no fake for this GraphQL operation");
      return { status: 200, url, headers: {}, data: { data: answer(graphql[key], variables) } } as never;
    }
    // `paginate` requests its first page by the expanded URL: match it back to the table's route templates.
    const path = url.replace(/^https?:\/\/[^/]+/, "").replace(/\?.*$/, "");
    const route =
      Object.keys(rest).find((r) => {
        const [m, template] = r.split(" ");
        return (
          m === method && (template === url || new RegExp(`^${template!.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path))
        );
      }) ?? `${method} ${url}`;
    const query = Object.fromEntries(new URL(url, "https://api.github.com").searchParams);
    calls.push({ route, params: { ...query, ...params } });
    if (!(route in rest)) throw httpError(404, `no fake for ${route}`);
    // Lists answer on page 1 only (no \`link\` header ends the paging).
    const page = Number(params.page ?? query.page ?? 1);
    const data = answer(rest[route], params);
    return { status: 200, url, headers: {}, data: page > 1 && Array.isArray(data) ? [] : data } as never;
  });
  const api = octokit as unknown as GitHubClient;
  // The same client behind the gateway of acme/web, the repository the run fixtures name.
  return { api, github: RepoGitHub.create({ octokit: api, owner: "acme", repo: "web" }), calls };
}

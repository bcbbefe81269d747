import type { ProcessRunner } from "./run-process.js";
import type { FakeGitHubState, FakeRepo } from "./fake-github-state.js";
import { failure } from "./github-shapes.js";

/**
 * The fake GitHub's routes as a table: each route a method, a path pattern and a handler, matched in table order.
 * find-my-way was weighed for this: the fake has ~30 routes, is matched a few hundred times per test,
 * and a linear scan over precompiled patterns costs ~3.6 µs of the ~1,000 µs a request to the fake takes (1,002 µs
 * per call with the old if-chain, 1,025 µs with this table: noise; `npm run bench libs router`, docs/performance.md
 * "Libraries and hand-written code"), so readability decided: a table read top to bottom, no dependency. A pattern is segments separated by `/`: a literal, `:name` (one segment, any value), or a final `*`
 * (zero or more segments, handed over as `tail`).
 */

export interface RouteRequest {
  method: string;
  segments: string[];
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** The request's Authorization header, for the routes that check what its token may do. */
  authorization?: string;
}

export type RouteResponse = { status: number; json?: unknown; text?: string; headers?: Record<string, string> };

/** What every route of the fake may use. */
export interface RouteContext {
  state: FakeGitHubState;
  exec: ProcessRunner;
  /** Absolute path of the bare repository for owner/name. */
  bareDir(repo: FakeRepo): string;
  apiUrl: string;
  webUrl: string;
}

/** What a pattern captured: `param(name)` for a `:name` segment (raw, not URL-decoded), `tail` for a final `*`. */
export interface RouteMatch {
  param(name: string): string;
  tail: string[];
}

/** A call to a route of the repository table (`/repos/{owner}/{repo}/…`). */
export interface RepoCall {
  ctx: RouteContext;
  req: RouteRequest;
  repo: FakeRepo;
  match: RouteMatch;
}

/** A call to a route outside a repository (`/app/…`, `/installation/…`). */
export interface AppCall {
  ctx: RouteContext;
  req: RouteRequest;
  match: RouteMatch;
}

export interface Route<C> {
  /** One method, or `*` for any. */
  method: string;
  path: string;
  handle(call: C): Promise<RouteResponse> | RouteResponse;
}

export const notFound: RouteResponse = failure(404, "Not Found");

/** A route table's lookup: the first route whose method and pattern fit, with what it captured; null for none. */
export type FindRoute<C> = (method: string, segments: string[]) => { route: Route<C>; match: RouteMatch } | null;

export function createRouteTable<C>(routes: readonly Route<C>[]): FindRoute<C> {
  const compiled = routes.map((route) => {
    const parts = route.path.split("/").filter(Boolean);
    const rest = parts.at(-1) === "*";
    return { route, parts: rest ? parts.slice(0, -1) : parts, rest };
  });
  return (method, segments) => {
    for (const { route, parts, rest } of compiled) {
      if (route.method !== "*" && route.method !== method) continue;
      if (rest ? segments.length < parts.length : segments.length !== parts.length) continue;
      const params = new Map<string, string>();
      const fits = parts.every((part, i) => {
        const segment = segments[i] ?? "";
        if (!part.startsWith(":")) return part === segment;
        params.set(part.slice(1), segment);
        return true;
      });
      if (!fits) continue;
      const param = (name: string): string => {
        const value = params.get(name);
        if (value === undefined) throw new Error(`route ${route.path} has no parameter :${name}`);
        return value;
      };
      return { route, match: { param, tail: segments.slice(parts.length) } };
    }
    return null;
  };
}

/** The token of an `Authorization: token …` or `bearer …` header (how Octokit sends an installation token). */
export function bearerToken(header: string | undefined): string | null {
  const m = /^(?:token|bearer)\s+(\S+)$/i.exec(header ?? "");
  return m?.[1] ?? null;
}

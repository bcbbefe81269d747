import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { createHttpFetch } from "../../src/github/http-fetch.js";
import { tokenOctokit } from "../../src/github/token-octokit.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";
import { waitUntil } from "../helpers/wait-until.js";

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local server answering with `route`, recording every request it got. */
async function serve(
  route: (seen: Seen, res: http.ServerResponse) => void,
): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      const s = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      seen.push(s);
      route(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
async function server(route: (seen: Seen, res: http.ServerResponse) => void) {
  const s = await serve(route);
  servers.push(s);
  return s;
}

const fetch = createHttpFetch();

describe("createHttpFetch", () => {
  it("sends method, headers and body, and answers a standard Response with status, headers and the final url", async () => {
    const s = await server((_, res) =>
      res.writeHead(201, { "content-type": "application/json", "x-ratelimit-remaining": "4999" }).end('{"id":7}'),
    );
    const response = await fetch(`${s.url}/repos/a/b/issues`, {
      method: "POST",
      headers: { Authorization: "token t", "Content-Type": "application/json" },
      body: '{"title":"x"}',
    });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.url).toBe(`${s.url}/repos/a/b/issues`);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("4999");
    expect(await response.json()).toEqual({ id: 7 });
    expect(s.seen[0]).toMatchObject({ method: "POST", url: "/repos/a/b/issues", body: '{"title":"x"}' });
    expect(s.seen[0]!.headers.authorization).toBe("token t");
  });

  it("decodes a gzip answer, as fetch does", async () => {
    const s = await server((seen, res) => {
      expect(seen.headers["accept-encoding"]).toContain("gzip");
      res
        .writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
        .end(gzipSync('{"ok":true}'));
    });
    const response = await fetch(`${s.url}/x`);
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(await response.json()).toEqual({ ok: true });
  });

  it("follows redirects: a POST answered 301 is re-sent as a GET; a 307 keeps method and body", async () => {
    const s = await server((seen, res) => {
      if (seen.url === "/old") return res.writeHead(301, { location: "/new" }).end();
      if (seen.url === "/keep") return res.writeHead(307, { location: "/kept" }).end();
      res.writeHead(200).end(`${seen.method} ${seen.url} ${seen.body}`);
    });
    const moved = await fetch(`${s.url}/old`, {
      method: "POST",
      body: "payload",
      headers: { authorization: "token t" },
    });
    expect(await moved.text()).toBe("GET /new ");
    expect(moved.url).toBe(`${s.url}/new`);
    expect(moved.redirected).toBe(true);
    expect(s.seen[1]!.headers.authorization).toBe("token t"); // same origin: the credentials go along
    const kept = await fetch(`${s.url}/keep`, { method: "PATCH", body: "payload" });
    expect(await kept.text()).toBe("PATCH /kept payload");
  });

  it("drops the authorization header on a redirect to another origin", async () => {
    const other = await server((seen, res) => res.writeHead(200).end(String(seen.headers.authorization ?? "none")));
    const s = await server((_, res) => res.writeHead(302, { location: `${other.url}/elsewhere` }).end());
    const response = await fetch(`${s.url}/repos/renamed`, { headers: { authorization: "token secret" } });
    expect(await response.text()).toBe("none");
  });

  it("returns the redirect itself with redirect: manual, and refuses it with redirect: error", async () => {
    const s = await server((_, res) => res.writeHead(302, { location: "/there" }).end());
    expect((await fetch(`${s.url}/here`, { redirect: "manual" })).status).toBe(302);
    await expect(fetch(`${s.url}/here`, { redirect: "error" })).rejects.toThrow(TypeError);
  });

  it("answers 204 with no body", async () => {
    const s = await server((_, res) => res.writeHead(204).end());
    const response = await fetch(`${s.url}/reactions/1`, { method: "DELETE" });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("an abort rejects with an AbortError; a refused connection with fetch's TypeError and the socket's error as cause", async () => {
    let arrived = false;
    const s = await server(() => void (arrived = true)); // never answers
    const controller = new AbortController();
    const pending = fetch(`${s.url}/slow`, { signal: controller.signal });
    // Aborted once the request is at the server (waiting on its answer).
    await waitUntil(() => arrived, "the request to reach the server");
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    const closed = await serve(() => undefined);
    await closed.close();
    const refused = await fetch(`${closed.url}/x`).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TypeError);
    expect(String((refused as TypeError & { cause: Error }).cause.message)).toMatch(/ECONNREFUSED/);
  });

  it("a silent connection fails after the idle timeout instead of hanging", async () => {
    const s = await server(() => undefined);
    const error = (await createHttpFetch({ idleTimeoutMs: 100 })(`${s.url}/hang`).catch(
      (e: unknown) => e,
    )) as TypeError & { cause: Error };
    expect(error).toBeInstanceOf(TypeError);
    expect(error.cause.message).toMatch(/no answer from 127\.0\.0\.1:\d+ within 100 ms/);
  });

  it("serves the Octokit our processes use: parsed data on success, a RequestError with GitHub's message on 404, writes still redacted", async () => {
    const s = await server((seen, res) => {
      if (seen.url.startsWith("/repos/a/b/pulls/1"))
        return res
          .writeHead(200, { "content-type": "application/json; charset=utf-8" })
          .end('{"number":1,"head":{"ref":"f"}}');
      if (seen.method === "POST") return res.writeHead(201, { "content-type": "application/json" }).end('{"id":3}');
      res.writeHead(404, { "content-type": "application/json" }).end('{"message":"Not Found"}');
    });
    const Octokit = tokenOctokit(createSecretRedactor(["sk-model-key-0123456789"]), {
      throttle: false,
      log: { warn: () => undefined },
    });
    const octokit = new Octokit({ baseUrl: s.url, auth: "t", retry: { enabled: false } });
    await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: "a",
      repo: "b",
      issue_number: 1,
      body: "key sk-model-key-0123456789",
    });
    expect(JSON.parse(s.seen[0]!.body)).toEqual({ body: "key [REDACTED]" });
    const pr = await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
      owner: "a",
      repo: "b",
      pull_number: 1,
    });
    expect(pr.data).toEqual({ number: 1, head: { ref: "f" } });
    const missing = (await octokit
      .request("GET /repos/{owner}/{repo}", { owner: "a", repo: "gone" })
      .catch((e: unknown) => e)) as Error & { status: number };
    expect(missing.status).toBe(404);
    expect(missing.message).toContain("Not Found");
  });
});

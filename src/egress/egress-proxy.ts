import { chmod, rm } from "node:fs/promises";
import { promises as dns } from "node:dns";
import http from "node:http";
import net from "node:net";
import type { BlockedHost, BlockKind } from "../exec/types.js";
import { decide, type LookupAll } from "./egress-decision.js";
import { normalizeHost, splitHostPort } from "./host-match.js";
import type { EgressRules } from "./network-policy.js";
import { parseSni, MAX_HELLO_BYTES } from "./tls-sni.js";
import { connectThrough, upstreamFor, type UpstreamProxy } from "./upstream-proxy.js";

/** One refused connection. */
export interface EgressBlock {
  /** The host the client asked for (`host:port` when the port is not 80 or 443). */
  host: string;
  kind: BlockKind;
  reason: string;
}

export type { BlockedHost } from "../exec/types.js";

export interface EgressProxyOptions {
  /** The Unix socket the proxy listens on (bind-mounted into the sandbox). */
  socketPath: string;
  rules: EgressRules;
  /** How names are resolved (default: the host's resolver, every address). */
  lookup?: LookupAll;
  /** The host's own proxy, which allowed connections go through (from HTTPS_PROXY/HTTP_PROXY/NO_PROXY). */
  upstream?: UpstreamProxy;
  onBlock?(block: EgressBlock): void;
}

export interface EgressProxy {
  readonly socketPath: string;
  /** Every host refused so far, most refused first. */
  blocked(): BlockedHost[];
  close(): Promise<void>;
}

const defaultLookup: LookupAll = (host) => dns.lookup(host, { all: true, verbatim: true });

/** Distinct hosts counted by name; further ones are counted together. */
const MAX_HOSTS = 200;

/** How long a tunnel may take to send its TLS ClientHello. */
const HELLO_TIMEOUT_MS = 15_000;

/**
 * The sandbox's only way out (policy `registries`): an HTTP proxy on a Unix socket that takes `CONNECT host:port`
 * (TLS only, its ClientHello's server name must be that host) and plain-HTTP requests in absolute form, checks each
 * target against the rules (see egress-decision), connects to the address it checked itself, and answers a refusal
 * with a 403 that says what was refused and how to allow it. Every refusal is counted per host.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const lookup = options.lookup ?? defaultLookup;
  const { rules, upstream } = options;
  const counts = new Map<string, BlockedHost>();
  const open = new Set<net.Socket>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const refuse = (host: string, port: number, kind: BlockKind, reason: string): string => {
    const shown = port === 80 || port === 443 ? host : `${host.includes(":") ? `[${host}]` : host}:${port}`;
    // A script that tries endless names is counted, but the list stays bounded.
    const key = counts.size >= MAX_HOSTS && !counts.has(shown) ? "(other hosts)" : shown;
    const known = counts.get(key);
    if (known) known.connections += 1;
    else counts.set(key, { host: key, kind, reason, connections: 1 });
    options.onBlock?.({ host: shown, kind, reason });
    return refusalText(shown, kind, reason, rules);
  };

  const server = http.createServer({ keepAlive: true });
  server.on("connection", (socket: net.Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });

  const ctx: ProxyContext = { rules, lookup, agent, open, refuse, ...(upstream ? { upstream } : {}) };
  server.on("request", (req, res) => void forwardRequest(ctx, req, res));
  server.on(
    "connect",
    (req: http.IncomingMessage, client: net.Socket, head: Buffer) => void tunnel(ctx, req, client, head),
  );

  await rm(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // A sandboxed user other than the app's (a container's non-root user) must be able to connect; the folder it is
  // in stays private, and inside the sandbox the socket alone is mounted.
  await chmod(options.socketPath, 0o666);

  return {
    socketPath: options.socketPath,
    blocked: () => [...counts.values()].map((b) => ({ ...b })).sort((a, b) => b.connections - a.connections),
    async close() {
      for (const s of open) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(options.socketPath, { force: true });
    },
  };
}

/** What the handlers share: the rules, the resolver, the upstream, the pool, the open sockets and the counter. */
interface ProxyContext {
  rules: EgressRules;
  lookup: LookupAll;
  upstream?: UpstreamProxy;
  agent: http.Agent;
  open: Set<net.Socket>;
  refuse(host: string, port: number, kind: BlockKind, reason: string): string;
}

/** A plain-HTTP request in absolute form: checked, then sent to the checked address (or the upstream proxy). */
async function forwardRequest(ctx: ProxyContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const { rules, lookup, upstream, agent, refuse } = ctx;
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    return answer(res, 400, "This is the sandbox's egress proxy: send requests in absolute form (http://host/path).\n");
  }
  if (url.protocol !== "http:")
    return answer(res, 400, `Only http:// requests are forwarded as such; use CONNECT for ${url.protocol}.\n`);
  const host = normalizeHost(url.hostname);
  const port = Number(url.port || 80);
  const d = await decide(host, port, rules, lookup);
  if (!d.ok) {
    if (d.kind === "unresolved") return answer(res, 502, `${d.reason}\n`);
    return answer(res, 403, refuse(host, port, d.kind, d.reason));
  }
  const headers = forwardHeaders(req.headers, url.host);
  const via = d.internal ? null : upstreamFor(upstream, host, "http");
  const target = literal(d.address);
  const out = http.request({
    agent,
    method: req.method,
    headers: via?.auth ? { ...headers, "proxy-authorization": via.auth } : headers,
    ...(via
      ? { host: via.host, port: via.port, path: `http://${target}:${port}${url.pathname}${url.search}` }
      : { host: d.address, port, path: `${url.pathname}${url.search}` }),
  });
  out.on("response", (r) => {
    res.writeHead(r.statusCode ?? 502, stripHopHeaders(r.headers));
    r.pipe(res);
  });
  out.on("error", (error) => {
    if (!res.headersSent) answer(res, 502, `${host}:${port} could not be reached (${error.message})\n`);
    else res.destroy();
  });
  req.pipe(out);
}

/** A CONNECT: checked, answered, its ClientHello's name compared, then joined to the checked address. */
async function tunnel(ctx: ProxyContext, req: http.IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
  const { rules, lookup, upstream, open, refuse } = ctx;
  client.on("error", () => undefined);
  const target = splitHostPort(req.url ?? "");
  if (!target) {
    client.end(statusLine(400, "CONNECT needs host:port\n"));
    return;
  }
  const { host, port } = target;
  const d = await decide(host, port, rules, lookup);
  if (!d.ok) {
    if (d.kind === "unresolved") {
      client.end(statusLine(502, `${d.reason}\n`));
      return;
    }
    client.end(statusLine(403, refuse(host, port, d.kind, d.reason)));
    return;
  }
  client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
  const hello = await readHello(client, head);
  if (hello === null) {
    client.destroy();
    return;
  }
  if (!d.internal) {
    const sni = parseSni(hello);
    const name = sni.kind === "hello" ? sni.name : null;
    if (name !== host) {
      const reason =
        sni.kind !== "hello"
          ? `a tunnel to ${host} that does not start with TLS (only TLS to the host it names goes through)`
          : `a TLS connection to ${name ?? "no name"} inside a tunnel opened to ${host}`;
      refuse(name ?? host, port, "tls-name", reason);
      client.destroy();
      return;
    }
  }
  const via = d.internal ? null : upstreamFor(upstream, host, "https");
  let server: net.Socket;
  try {
    server = via ? await connectThrough(via, d.address, port) : await connectTo(d.address, port);
  } catch {
    client.destroy();
    return;
  }
  open.add(server);
  server.once("close", () => open.delete(server));
  server.on("error", () => client.destroy());
  client.on("error", () => server.destroy());
  client.on("close", () => server.destroy());
  server.on("close", () => client.destroy());
  server.write(hello);
  server.pipe(client);
  client.pipe(server);
}

/** The text of a 403: what was refused, why, and how to allow it when a repository can. */
export function refusalText(host: string, kind: BlockKind, reason: string, rules: EgressRules): string {
  const how =
    kind !== "not-allowed"
      ? "The sandbox never reaches the host's own, link-local or private addresses; an operator can allow an internal mirror by exact host:port in AIDER_BOT_EGRESS_INTERNAL."
      : rules.repositoryMayAdd
        ? "If the tests need it, add it to sandbox.network.allow in .github/aider.yml (on the default branch)."
        : "If the tests need it, ask the operator to add it to AIDER_BOT_EGRESS_ALLOW.";
  return `aider-bot's sandbox network policy (${rules.policy}) refused ${host}: ${reason}. ${how}\n`;
}

function answer(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function statusLine(status: number, text: string): string {
  const word = status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Bad Gateway";
  return `HTTP/1.1 ${status} ${word}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

/** The first bytes of a tunnel, up to a complete ClientHello (or what shows it is none); null when the client left. */
function readHello(client: net.Socket, head: Buffer): Promise<Buffer | null> {
  return new Promise((resolve) => {
    let buf = head;
    const done = (value: Buffer | null) => {
      clearTimeout(timer);
      client.off("data", onData);
      client.off("close", onClose);
      client.pause();
      resolve(value);
    };
    const check = () => {
      const r = parseSni(buf);
      if (r.kind !== "incomplete" || buf.length >= MAX_HELLO_BYTES) done(buf);
    };
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      check();
    };
    const onClose = () => done(null);
    const timer = setTimeout(() => done(null), HELLO_TIMEOUT_MS);
    client.on("data", onData);
    client.once("close", onClose);
    if (buf.length) check();
  });
}

function connectTo(address: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: address, port });
    s.once("connect", () => {
      s.off("error", reject);
      resolve(s);
    });
    s.once("error", reject);
  });
}

const HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** The client's headers less the hop-by-hop ones, with `Host` set to the URL's authority (no second host behind it). */
function forwardHeaders(headers: http.IncomingHttpHeaders, authority: string): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP.has(k) && v !== undefined) out[k] = v;
  out.host = authority;
  return out;
}

function stripHopHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP.has(k) && v !== undefined) out[k] = v;
  return out;
}

const literal = (address: string) => (address.includes(":") ? `[${address}]` : address);

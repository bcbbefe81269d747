import net from "node:net";
import { matchesPattern, normalizeHost } from "./host-match.js";

/** The host's own proxy settings (HTTPS_PROXY, HTTP_PROXY, NO_PROXY): allowed connections leave through them. */
export interface UpstreamProxy {
  /** For tunnels (https). */
  https?: ProxyAddress;
  /** For plain-HTTP requests. */
  http?: ProxyAddress;
  /** Hosts reached directly (`NO_PROXY`: names, `.suffix`es, `*`). */
  noProxy: readonly string[];
}

export interface ProxyAddress {
  host: string;
  port: number;
  /** `Basic …` from the URL's user and password. */
  auth?: string;
}

/** An `http://[user:pass@]host:port` proxy URL; null for anything else (the app then goes direct and says so). */
export function parseProxyUrl(raw: string | undefined): ProxyAddress | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw.includes("://") ? raw : `http://${raw}`);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" || !url.hostname) return null;
  const user = decodeURIComponent(url.username);
  return {
    host: normalizeHost(url.hostname),
    port: Number(url.port || 80),
    ...(user ? { auth: `Basic ${Buffer.from(`${user}:${decodeURIComponent(url.password)}`).toString("base64")}` } : {}),
  };
}

/** The proxy a connection to `host` goes through, or null to go directly. */
export function upstreamFor(
  upstream: UpstreamProxy | undefined,
  host: string,
  scheme: "http" | "https",
): ProxyAddress | null {
  const proxy = upstream?.[scheme];
  if (!upstream || !proxy) return null;
  const bypass = upstream.noProxy.some((entry) => {
    const e = normalizeHost(entry.replace(/:\d+$/, ""));
    if (e === "*") return true;
    const suffix = e.startsWith("*.") ? e.slice(1) : e.startsWith(".") ? e : null;
    return suffix
      ? host.endsWith(suffix) || host === suffix.slice(1)
      : matchesPattern(host, e) || host.endsWith(`.${e}`);
  });
  return bypass ? null : proxy;
}

/** A tunnel to `address:port` through the upstream proxy (`CONNECT`), ready for the client's bytes. */
export function connectThrough(proxy: ProxyAddress, address: string, port: number): Promise<net.Socket> {
  const authority = `${address.includes(":") ? `[${address}]` : address}:${port}`;
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: proxy.host, port: proxy.port });
    let head = Buffer.alloc(0);
    const fail = (error: Error) => {
      s.destroy();
      reject(error);
    };
    s.once("error", fail);
    s.once("connect", () =>
      s.write(
        `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${proxy.auth ? `Proxy-Authorization: ${proxy.auth}\r\n` : ""}\r\n`,
      ),
    );
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > 16_384) fail(new Error("the upstream proxy's answer is too long"));
        return;
      }
      s.off("data", onData);
      s.off("error", fail);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.toString("latin1"))?.[1];
      if (status !== "200") return fail(new Error(`the upstream proxy answered ${status ?? "something else"}`));
      const rest = head.subarray(end + 4);
      if (rest.length) s.unshift(rest);
      resolve(s);
    };
    s.on("data", onData);
  });
}

import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { startEgressProxy, type EgressProxy } from "../../src/egress/egress-proxy.js";
import { egressRules } from "../../src/egress/network-policy.js";

/** The proxy on its Unix socket, driven by a raw client (no sandbox): tunnels and the host's own proxy. */
describe("the egress proxy's tunnels", () => {
  let dir: string;
  let proxy: EgressProxy | null = null;
  const servers: net.Server[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "egress-proxy-"));
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = null;
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    await rm(dir, { recursive: true, force: true });
  });
  const rules = egressRules({
    policy: "registries",
    operatorAllow: ["pkg.example.org"],
    internal: [],
    repositoryMayAdd: true,
  });
  // A public address: the proxy must never need to reach it (the refusal comes first, or the upstream takes it).
  const lookup = async () => [{ address: "93.184.216.34", family: 4 }];

  /** Open a tunnel to `target` through the proxy and start TLS with `servername`; resolves with the proxy's answer line. */
  function tunnel(
    socketPath: string,
    target: string,
    servername: string,
  ): Promise<{ status: string; closed: Promise<void> }> {
    return new Promise((resolve, reject) => {
      const s = net.connect(socketPath);
      s.on("error", reject);
      s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      s.once("data", (d: Buffer) => {
        const status = d.toString("latin1").split("\r\n")[0]!;
        const closed = new Promise<void>((done) => s.once("close", () => done()));
        if (status.includes(" 200 ")) {
          const t = tls.connect({ socket: s, servername });
          t.on("error", () => undefined);
        }
        resolve({ status, closed });
      });
    });
  }

  it("refuses a tunnel whose TLS name is not the host it was opened to (no fronting through an allowed host)", async () => {
    proxy = await startEgressProxy({ socketPath: path.join(dir, "p.sock"), rules, lookup });
    const t = await tunnel(proxy.socketPath, "pkg.example.org:443", "evil.example.net");
    expect(t.status).toBe("HTTP/1.1 200 Connection Established");
    await t.closed;
    expect(proxy.blocked()).toEqual([
      {
        host: "evil.example.net",
        kind: "tls-name",
        reason: "a TLS connection to evil.example.net inside a tunnel opened to pkg.example.org",
        connections: 1,
      },
    ]);
  });

  it("sends allowed tunnels through the host's own proxy, to the address it checked", async () => {
    const seen: string[] = [];
    const upstream = net.createServer((s) => {
      s.once("data", (d: Buffer) => {
        seen.push(d.toString("latin1").split("\r\n\r\n")[0]!);
        s.write("HTTP/1.1 200 OK\r\n\r\n");
        s.once("data", (hello: Buffer) => {
          seen.push(hello[0] === 0x16 ? "tls hello" : "other");
          s.destroy();
        });
      });
    });
    servers.push(upstream);
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", () => r()));
    const port = (upstream.address() as net.AddressInfo).port;
    proxy = await startEgressProxy({
      socketPath: path.join(dir, "p.sock"),
      rules,
      lookup,
      upstream: { https: { host: "127.0.0.1", port, auth: "Basic dTpw" }, noProxy: [] },
    });
    const t = await tunnel(proxy.socketPath, "pkg.example.org:443", "pkg.example.org");
    expect(t.status).toBe("HTTP/1.1 200 Connection Established");
    await t.closed;
    expect(seen).toEqual([
      "CONNECT 93.184.216.34:443 HTTP/1.1\r\nHost: 93.184.216.34:443\r\nProxy-Authorization: Basic dTpw",
      "tls hello",
    ]);
    expect(proxy.blocked()).toEqual([]);
  });
});

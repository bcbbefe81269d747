/**
 * `npm run bench egress`: the cost of the `registries` network policy on installs. `npm ci` of a lockfile of 300
 * synthetic packages from a local registry on 127.0.0.1, in bubblewrap, through the filtering proxy (the registry
 * allowed as an internal mirror by host:port) against the `open` policy's direct connection, alternated in the same
 * run; prints the ratio of the medians (target ≤ 1.15×).
 */
import { createHash } from "node:crypto";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { gzipSync } from "node:zlib";
import pino from "pino";
import { createCheckExec } from "../src/app/create-check-exec.js";
import { readEnv } from "../src/config/env.js";
import { createExec } from "../src/exec/create-exec.js";
import { sandboxProblem } from "../src/exec/sandbox.js";

const COUNT = 300;
const ROUNDS = 3;

export async function runEgressBench(): Promise<void> {
  const exec = createExec({ sourceEnv: process.env });
  const problem = await sandboxProblem(exec);
  if (problem) {
    console.log(`egress: skipped (${problem})`);
    return;
  }
  const tarballs = new Map<string, Buffer>();
  for (let i = 0; i < COUNT; i++) tarballs.set(name(i), tarball(name(i)));
  const server = http.createServer((req, res) => {
    const m = /^\/(pkg-\d+)\/-\/pkg-\d+-1\.0\.0\.tgz$/.exec(req.url ?? "");
    const body = m ? tarballs.get(m[1]!) : undefined;
    if (!body) {
      res.statusCode = 404;
      return res.end();
    }
    res.setHeader("content-type", "application/octet-stream");
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  const root = await mkdtemp(path.join(process.cwd(), ".bench-egress-"));
  try {
    const project = path.join(root, "work", "job", "repo");
    await mkdir(project, { recursive: true });
    await writeProject(project, port, tarballs);
    const execs = {
      direct: checkExecFor("open", root, port),
      proxy: checkExecFor("registries", root, port),
    };
    const times: Record<keyof typeof execs, number[]> = { direct: [], proxy: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const kind of round % 2 ? (["proxy", "direct"] as const) : (["direct", "proxy"] as const)) {
        const cache = path.join(project, `.cache-${kind}-${round}`);
        await rm(path.join(project, "node_modules"), { recursive: true, force: true });
        const started = performance.now();
        const r = await execs[kind].run({
          command: `npm ci --no-audit --no-fund --ignore-scripts --cache ${cache} --registry http://127.0.0.1:${port}/`,
          shell: true,
          cwd: project,
          timeoutMs: 600_000,
        });
        const ms = performance.now() - started;
        if (r.exitCode !== 0) throw new Error(`npm ci (${kind}) failed:\n${r.output.slice(-2000)}`);
        times[kind].push(ms);
        await rm(cache, { recursive: true, force: true });
      }
    for (const e of Object.values(execs)) await e.close?.();
    const direct = median(times.direct);
    const proxy = median(times.proxy);
    console.log(
      `egress: npm ci of ${COUNT} packages from a local registry, median of ${ROUNDS}: direct (open) ${(direct / 1000).toFixed(2)} s, through the proxy (registries) ${(proxy / 1000).toFixed(2)} s — ${(proxy / direct).toFixed(2)}× (target ≤ 1.15×)`,
    );
  } finally {
    server.close();
    await rm(root, { recursive: true, force: true });
  }
}

function checkExecFor(network: "open" | "registries", root: string, port: number) {
  return createCheckExec(
    readEnv({
      PATH: process.env.PATH,
      AIDER_BOT_SANDBOX: "bubblewrap",
      AIDER_BOT_SANDBOX_NETWORK: network,
      AIDER_BOT_WORK_DIR: path.join(root, "work"),
      AIDER_BOT_EGRESS_INTERNAL: `127.0.0.1:${port}`,
    }),
    createExec({ sourceEnv: process.env }),
    pino({ level: "silent" }),
    { appDir: root },
  );
}

const name = (i: number) => `pkg-${String(i).padStart(3, "0")}`;

async function writeProject(dir: string, port: number, tarballs: Map<string, Buffer>): Promise<void> {
  const dependencies = Object.fromEntries([...tarballs.keys()].map((n) => [n, "1.0.0"]));
  const packages: Record<string, unknown> = { "": { name: "bench", version: "1.0.0", dependencies } };
  for (const [n, body] of tarballs)
    packages[`node_modules/${n}`] = {
      version: "1.0.0",
      resolved: `http://127.0.0.1:${port}/${n}/-/${n}-1.0.0.tgz`,
      integrity: `sha512-${createHash("sha512").update(body).digest("base64")}`,
    };
  await writeFile(path.join(dir, "package.json"), JSON.stringify({ name: "bench", version: "1.0.0", dependencies }));
  await writeFile(
    path.join(dir, "package-lock.json"),
    JSON.stringify({ name: "bench", version: "1.0.0", lockfileVersion: 3, requires: true, packages }),
  );
}

/** A package tarball: `package/package.json` and `package/index.js` in a gzipped ustar archive. */
function tarball(pkg: string): Buffer {
  const files: [string, string][] = [
    ["package/package.json", JSON.stringify({ name: pkg, version: "1.0.0", main: "index.js" })],
    ["package/index.js", `module.exports = ${JSON.stringify(pkg)};\n${"// padding\n".repeat(200)}`],
  ];
  const blocks: Buffer[] = [];
  for (const [file, text] of files) {
    const body = Buffer.from(text);
    const header = Buffer.alloc(512);
    header.write(file, 0, "utf8");
    header.write("0000644\0", 100);
    header.write("0000000\0", 108);
    header.write("0000000\0", 116);
    header.write(`${body.length.toString(8).padStart(11, "0")}\0`, 124);
    header.write(
      `${Math.floor(Date.now() / 1000)
        .toString(8)
        .padStart(11, "0")}\0`,
      136,
    );
    header.write("        ", 148);
    header.write("0", 156);
    header.write("ustar\0", 257);
    header.write("00", 263);
    let sum = 0;
    for (const b of header) sum += b;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

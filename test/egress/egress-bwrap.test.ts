import { promises as dns } from "node:dns";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { createCheckExec } from "../../src/app/create-check-exec.js";
import { readEnv } from "../../src/config/env.js";
import type { LookupAll } from "../../src/egress/egress-decision.js";
import { renderEgress } from "../../src/egress/egress-report.js";
import { createExec } from "../../src/exec/create-exec.js";
import type { Exec } from "../../src/exec/types.js";
import { HOSTILE_SCRIPT, hostileResult, startEgressFixtures, type EgressFixtures } from "../helpers/egress-fixtures.js";
import { describeWith } from "../helpers/needs.js";

const exec = createExec({ sourceEnv: process.env });
const log = pino({ level: "silent" });

/** The test's resolver: the allowlisted `rebind.example.org` resolves to the host's loopback (a DNS-rebinding name). */
const lookup: LookupAll = async (host) =>
  host === "rebind.example.org" ? [{ address: "127.0.0.1", family: 4 }] : dns.lookup(host, { all: true });

describeWith(["bubblewrap", "socat"], "the registries network policy in bubblewrap", () => {
  let fx: EgressFixtures;
  let root: string;
  let checkout: string;
  let checkExec: Exec;
  beforeAll(async () => {
    fx = await startEgressFixtures();
    // Under the project folder, not /tmp (which the sandbox replaces).
    root = await mkdtemp(path.join(process.cwd(), ".egress-test-"));
    checkout = path.join(root, "work", "job", "repo");
    await mkdir(path.join(checkout, ".git"), { recursive: true });
    await writeFile(path.join(checkout, "hostile.py"), HOSTILE_SCRIPT);
    await writeFile(path.join(checkout, "package.json"), JSON.stringify({ name: "hostile", version: "1.0.0" }));
    checkExec = createCheckExec(
      readEnv({
        PATH: process.env.PATH,
        AIDER_BOT_SANDBOX: "bubblewrap",
        AIDER_BOT_WORK_DIR: path.join(root, "work"),
        AIDER_BOT_EGRESS_INTERNAL: `127.0.0.1:${fx.registryPort}`,
      }),
      exec,
      log,
      { appDir: root, repositoryAllow: ["rebind.example.org"], egressLookup: lookup },
    );
  });
  afterAll(async () => {
    await checkExec?.close?.();
    await fx?.close();
    await rm(root, { recursive: true, force: true });
  });
  const run = (command: string, timeoutMs = 120_000) =>
    checkExec.run({ command, shell: true, cwd: checkout, timeoutMs });

  it("is the default policy, and blocks every way out but the allowed registry; the status and the model are told", async () => {
    expect(checkExec.egressReport?.().policy).toBe("registries");
    const r = await run(`/usr/bin/python3 hostile.py ${fx.registryPort} ${fx.appPort} ${fx.redisPort}`);
    const res = hostileResult(r.output);
    expect(res.proxy).toBe("http://127.0.0.1:3128");
    // Through the proxy: refused with a reason.
    expect(res.evil).toMatch(/403/);
    expect(res.evil_again).toMatch(/^http 403 .*refused evil\.example\.net: not on the allowlist/);
    expect(res.redis_proxy).toMatch(/^http 403 .*loopback/);
    expect(res.app_proxy).toMatch(/^http 403 .*loopback/);
    expect(res.metadata).toMatch(/^http 403 .*link-local/);
    expect(res.rebind).toMatch(/403/);
    expect(res.v6_loopback).toMatch(/^http 403 .*loopback/);
    expect(res.v6_mapped).toMatch(/^http 403 .*loopback/);
    expect(res.v6_metadata).toMatch(/^http 403 .*unique-local/);
    // The operator's internal mirror, by exact host:port, goes through.
    expect(res.registry).toMatch(/^ok 200 .*"name":"tiny-pkg"/);
    // Around the proxy: no route at all (the sandbox's loopback is its own; nothing else exists).
    for (const k of ["direct_redis", "direct_app", "direct_metadata", "direct_public", "direct_v6_public"])
      expect(res[k]).toMatch(/^error /);
    expect(res.unset_proxy).toMatch(/^error /);
    // No resolver inside: a query carrying data gets no answer, and names do not resolve.
    expect(res.dns_resolver).toMatch(/^error /);
    expect(res.dns_public).toMatch(/^error /);
    expect(res.getaddrinfo).toMatch(/^error /);
    // Nothing reached the app's port or the Redis stand-in.
    expect(fx.appHits).toEqual([]);

    const report = checkExec.egressReport!();
    const hosts = new Map(report.blocked.map((b) => [b.host, b]));
    expect(hosts.get("evil.example.net")).toMatchObject({ kind: "not-allowed", connections: 2 });
    expect(hosts.get(`127.0.0.1:${fx.appPort}`)?.kind).toBe("address");
    expect(hosts.get("169.254.169.254")?.kind).toBe("address");
    expect(hosts.get("rebind.example.org")?.reason).toMatch(/resolves to 127\.0\.0\.1, a loopback address/);
    expect(renderEgress(report)).toContain(
      "blocked: `evil.example.net` (2 connections) — add it to `sandbox.network.allow` in .github/aider.yml if the tests need it",
    );
    // The failed command's output (what the model and the transcript get) says so.
    expect(r.output).toMatch(
      /\[aider-bot\] The sandbox's network policy \(registries\) refused connections while this command ran: evil\.example\.net/,
    );
  });

  it("lets npm install a package from the internal registry through the proxy", async () => {
    const r = await run(
      `npm install --no-audit --no-fund --no-save --cache "$PWD/.npm-cache" --registry http://127.0.0.1:${fx.registryPort}/ tiny-pkg`,
    );
    expect({ exit: r.exitCode, out: r.exitCode === 0 ? "" : r.output }).toEqual({ exit: 0, out: "" });
    expect(existsSync(path.join(checkout, "node_modules", "tiny-pkg", "package.json"))).toBe(true);
    expect(fx.registryHits).toContain("/tiny-pkg/-/tiny-pkg-1.0.0.tgz");
  });

  it("lets pip download a wheel from the internal index through the proxy", async () => {
    const r = await run(
      `/usr/bin/python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check --index-url http://127.0.0.1:${fx.registryPort}/simple/ --trusted-host 127.0.0.1 -d dl tinypkg`,
    );
    expect({ exit: r.exitCode, out: r.exitCode === 0 ? "" : r.output }).toEqual({ exit: 0, out: "" });
    expect(existsSync(path.join(checkout, "dl", "tinypkg-1.0-py3-none-any.whl"))).toBe(true);
  });
});

describeWith("bubblewrap", "the none network policy in bubblewrap", () => {
  let fx: EgressFixtures;
  let root: string;
  let checkout: string;
  beforeAll(async () => {
    fx = await startEgressFixtures();
    root = await mkdtemp(path.join(process.cwd(), ".egress-test-"));
    checkout = path.join(root, "work", "job", "repo");
    await mkdir(checkout, { recursive: true });
    await writeFile(path.join(checkout, "hostile.py"), HOSTILE_SCRIPT);
  });
  afterAll(async () => {
    await fx?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("AIDER_BOT_SANDBOX_NETWORK=0 still means none: no proxy, no route, not even to an internal mirror", async () => {
    const checkExec = createCheckExec(
      readEnv({
        PATH: process.env.PATH,
        AIDER_BOT_SANDBOX: "bubblewrap",
        AIDER_BOT_SANDBOX_NETWORK: "0",
        AIDER_BOT_WORK_DIR: path.join(root, "work"),
        AIDER_BOT_EGRESS_INTERNAL: `127.0.0.1:${fx.registryPort}`,
      }),
      exec,
      log,
      { appDir: root },
    );
    try {
      expect(checkExec.egressReport?.().policy).toBe("none");
      const r = await checkExec.run({
        command: `/usr/bin/python3 hostile.py ${fx.registryPort} ${fx.appPort} ${fx.redisPort}`,
        shell: true,
        cwd: checkout,
        timeoutMs: 120_000,
      });
      const res = hostileResult(r.output);
      expect(res.proxy).toBe("");
      for (const k of ["evil", "registry", "direct_redis", "direct_public", "dns_public", "getaddrinfo"])
        expect(res[k]).toMatch(/^error /);
      expect(fx.appHits).toEqual([]);
      expect(fx.registryHits).toEqual([]);
    } finally {
      await checkExec.close?.();
    }
  });
});

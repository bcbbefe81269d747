import { promises as dns } from "node:dns";
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
import { ensureTestImage, TEST_IMAGE } from "../helpers/podman-test-image.js";

const exec = createExec({ sourceEnv: process.env });
const log = pino({ level: "silent" });
const lookup: LookupAll = async (host) =>
  host === "rebind.example.org" ? [{ address: "127.0.0.1", family: 4 }] : dns.lookup(host, { all: true });

/**
 * The same hostile repository in container mode (Podman, `--network none`): the forwarder is the host's socat run
 * through the host's own loader from read-only mounts, since the image has no socat of its own.
 */
describeWith(["podman", "socat"], "the registries network policy in a container", () => {
  let fx: EgressFixtures;
  let root: string;
  let checkout: string;
  let checkExec: Exec;
  beforeAll(async () => {
    ensureTestImage();
    fx = await startEgressFixtures();
    root = await mkdtemp(path.join(process.cwd(), ".egress-ctr-test-"));
    checkout = path.join(root, "work", "job", "repo");
    await mkdir(path.join(checkout, ".git"), { recursive: true });
    await writeFile(path.join(checkout, "hostile.py"), HOSTILE_SCRIPT);
    checkExec = createCheckExec(
      readEnv({
        PATH: process.env.PATH,
        AIDER_BOT_SANDBOX: "container",
        AIDER_BOT_SANDBOX_NETWORK: "registries",
        AIDER_BOT_WORK_DIR: path.join(root, "work"),
        AIDER_BOT_EGRESS_INTERNAL: `127.0.0.1:${fx.registryPort}`,
      }),
      exec,
      log,
      { appDir: root, repositoryAllow: ["rebind.example.org"], egressLookup: lookup },
    );
    checkExec.useContainer!({
      image: TEST_IMAGE,
      imageSource: "the test",
      checkout,
      cacheKey: `egress-${process.pid}`,
    });
  }, 180_000);
  afterAll(async () => {
    await checkExec?.close?.();
    await fx?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("blocks every way out but the allowed registry, and says what it blocked", async () => {
    const r = await checkExec.run({
      command: `python3 hostile.py ${fx.registryPort} ${fx.appPort} ${fx.redisPort}`,
      shell: true,
      cwd: checkout,
      timeoutMs: 120_000,
    });
    expect(await checkExec.sandboxMode!()).toMatch(/^container \(image /);
    const res = hostileResult(r.output);
    expect(res.proxy).toBe("http://127.0.0.1:3128");
    expect(res.evil).toMatch(/403/);
    expect(res.evil_again).toMatch(/^http 403 .*not on the allowlist/);
    expect(res.redis_proxy).toMatch(/^http 403 .*loopback/);
    expect(res.app_proxy).toMatch(/^http 403 .*loopback/);
    expect(res.metadata).toMatch(/^http 403 .*link-local/);
    expect(res.rebind).toMatch(/403/);
    expect(res.v6_loopback).toMatch(/^http 403 .*loopback/);
    expect(res.v6_mapped).toMatch(/^http 403 .*loopback/);
    expect(res.registry).toMatch(/^ok 200 .*"name":"tiny-pkg"/);
    for (const k of ["direct_redis", "direct_app", "direct_metadata", "direct_public", "direct_v6_public"])
      expect(res[k]).toMatch(/^error /);
    expect(res.unset_proxy).toMatch(/^error /);
    expect(res.dns_resolver).toMatch(/^error /);
    expect(res.dns_public).toMatch(/^error /);
    expect(res.getaddrinfo).toMatch(/^error /);
    expect(fx.appHits).toEqual([]);
    const report = checkExec.egressReport!();
    expect(report.blocked.map((b) => b.host)).toEqual(
      expect.arrayContaining(["evil.example.net", "169.254.169.254", "rebind.example.org"]),
    );
    expect(renderEgress(report)).toContain("blocked: `evil.example.net` (2 connections)");
    expect(r.output).toMatch(/\[aider-bot\] The sandbox's network policy \(registries\) refused connections/);
  });

  it("downloads a wheel from the internal index through the proxy (the good path)", async () => {
    const r = await checkExec.run({
      command: `python3 -c "import urllib.request as u; open('w.whl','wb').write(u.urlopen('http://127.0.0.1:${fx.registryPort}/files/tinypkg-1.0-py3-none-any.whl', timeout=10).read())" && ls -l w.whl`,
      shell: true,
      cwd: checkout,
      timeoutMs: 60_000,
    });
    expect({ exit: r.exitCode, out: r.exitCode === 0 ? "" : r.output }).toEqual({ exit: 0, out: "" });
    expect(fx.registryHits).toContain("/files/tinypkg-1.0-py3-none-any.whl");
  });
});

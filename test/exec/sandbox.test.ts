import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createExec } from "../../src/exec/create-exec.js";
import { createSandboxedExec, probeSandbox, sandboxRequest } from "../../src/exec/sandbox.js";
import { has, itWith } from "../helpers/needs.js";

const exec = createExec({ sourceEnv: process.env });

describe("sandboxRequest", () => {
  it("builds a bwrap invocation with the checkout writable and secrets hidden", () => {
    const r = sandboxRequest(
      { command: "npm test", shell: true, cwd: "/tmp/job/checkout" },
      { hide: ["/root", "/etc/aider-bot"], network: false },
    );
    expect(r.command).toBe("bwrap");
    expect(r.shell).toBe(false);
    expect(r.args).toEqual(
      expect.arrayContaining(["--tmpfs", "/root", "--bind", "/tmp/job/checkout", "--unshare-all", "--die-with-parent"]),
    );
    expect(r.args).not.toContain("--share-net");
    expect(r.args!.slice(-3)).toEqual(["/bin/sh", "-c", "npm test"]);
  });
});

describe("sandboxRequest isolation flags", () => {
  it("mounts the repository's package cache back inside the hidden cache dir, its settings yielding to the request's", () => {
    const cache = "/var/cache/aider-bot/packages/aider-bot-cache-octo-one-0123456789";
    const r = sandboxRequest(
      { command: "npm ci", shell: true, cwd: "/work/job/checkout", env: { GOCACHE: "/elsewhere" } },
      { hide: ["/var/cache/aider-bot", "/root"], network: false, packageCache: cache },
    );
    const args = r.args ?? [];
    const bind = args.findIndex((a, i) => a === "--bind" && args[i + 1] === cache && args[i + 2] === cache);
    expect(bind).toBeGreaterThan(args.indexOf("/var/cache/aider-bot"));
    const set = (name: string) => {
      const i = args.findIndex((a, j) => a === "--setenv" && args[j + 1] === name);
      return i < 0 ? undefined : args[i + 2];
    };
    expect(set("npm_config_cache")).toBe(`${cache}/npm`);
    expect(set("GOMODCACHE")).toBe(`${cache}/go/mod`);
    expect(set("GOCACHE")).toBeUndefined();
  });

  it("turns off the reports around an install (npm's audit, fund and update check, pip's version check), the request's own values winning", () => {
    const r = sandboxRequest(
      { command: "npm install", shell: true, cwd: "/work/job/checkout", env: { npm_config_fund: "true" } },
      { hide: ["/root"], network: false },
    );
    const args = r.args ?? [];
    const set = (name: string) => {
      const i = args.findIndex((a, j) => a === "--setenv" && args[j + 1] === name);
      return i < 0 ? undefined : args[i + 2];
    };
    expect(set("npm_config_audit")).toBe("false");
    expect(set("npm_config_update_notifier")).toBe("false");
    expect(set("PIP_DISABLE_PIP_VERSION_CHECK")).toBe("1");
    expect(set("npm_config_fund")).toBeUndefined();
    expect(r.env).toEqual({ npm_config_fund: "true" });
  });

  it("hides a work dir that contains the checkout, then mounts the checkout back; own PID namespace and /proc", () => {
    const r = sandboxRequest(
      { command: "make", shell: true, cwd: "/srv/work/job-1/repo" },
      { hide: ["/srv/work/job-1", "/srv/work"], network: true, gitDir: "/srv/work/job-1/repo/.git" },
    );
    const a = r.args!.join(" ");
    expect(a).toContain(
      "--tmpfs /srv/work --tmpfs /srv/work/job-1 --bind /srv/work/job-1/repo /srv/work/job-1/repo --ro-bind /srv/work/job-1/repo/.git /srv/work/job-1/repo/.git",
    );
    expect(a).toContain("--proc /proc");
    expect(r.args).toEqual(expect.arrayContaining(["--unshare-pid", "--die-with-parent", "--share-net"]));
  });
});

describe("the sandbox on this machine", () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), "sbx-"));
    await mkdir(path.join(base, "checkout"));
    await mkdir(path.join(base, "checkout", ".git", "hooks"), { recursive: true });
    await mkdir(path.join(base, "secrets"));
    await writeFile(path.join(base, "secrets", "app.pem"), "PRIVATE KEY");
    await writeFile(path.join(base, "other-job.txt"), "another job's file");
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it("is found working or not by the app's probe exactly when the tests' own probe says so", async () => {
    expect(await probeSandbox(exec)).toBe(has("bubblewrap"));
  });

  itWith(
    "bubblewrap",
    "lets a repo script write its checkout but not read secrets, other jobs' files or write elsewhere",
    async () => {
      const sbx = createSandboxedExec(exec, { hide: [path.join(base, "secrets")], network: false });
      const cwd = path.join(base, "checkout");
      const r = await sbx.run({
        command: `echo built > out.txt; cat ${base}/secrets/app.pem; cat ${base}/other-job.txt; echo x > /usr/pwned; echo evil > .git/hooks/pre-commit; echo done`,
        shell: true,
        cwd,
        timeoutMs: 10_000,
      });
      expect(r.output).toContain("done");
      expect(await readFile(path.join(cwd, "out.txt"), "utf8")).toBe("built\n");
      expect(r.output).not.toContain("PRIVATE KEY");
      expect(r.output).not.toContain("another job's file");
      expect(r.output).toMatch(/Read-only file system|Permission denied/);
      await expect(readFile(path.join(cwd, ".git", "hooks", "pre-commit"), "utf8")).rejects.toThrow();
    },
  );

  itWith("bubblewrap", "gives npm an install without the audit, funding and update reports", async () => {
    const sbx = createSandboxedExec(exec, { hide: [os.homedir()], network: false });
    const r = await sbx.run({
      command: "npm config get audit fund update-notifier",
      shell: true,
      cwd: path.join(base, "checkout"),
      timeoutMs: 60_000,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^audit=false\nfund=false\nupdate-notifier=false$/m);
  });
});

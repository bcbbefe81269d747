import { spawnSync } from "node:child_process";
import { SANDBOX_PROBE_ARGS } from "../../src/exec/sandbox.js";
import { NEEDS, skipTitle, type Need } from "./skip-note.js";

export type { Need } from "./skip-note.js";

/**
 * Tests that need a tool beyond the README's requirements (Node, npm, git, python3, g++): bubblewrap, a Redis server,
 * Podman, the docker client. Where the tool is there they run for real; where it is not, they are skipped with one line naming what to
 * install, and test/helpers/needs-reporter.js sums the skips up at the end of the run. Use these instead of
 * `describe.skip` or an early `return`, so no test passes without having run.
 *
 *   describeWith("redis", "the Redis job engine", () => { … });
 *   itWith("bubblewrap", "hides the home folder", async () => { … });
 */

/** How a tool is probed: a command that succeeds only where the tests can use the tool for real. */
const PROBES: Record<Need, { command: string; args: readonly string[]; timeoutMs: number; cannotRun: string }> = {
  // The same flags a sandboxed run uses (src/exec/sandbox.ts), so "it works" means "a real run works".
  bubblewrap: {
    command: "bwrap",
    args: SANDBOX_PROBE_ARGS,
    timeoutMs: 10_000,
    cannotRun: "allow unprivileged user namespaces",
  },
  redis: {
    command: "redis-server",
    args: ["--version"],
    timeoutMs: 10_000,
    cannotRun: `reinstall it: ${NEEDS.redis.install}`,
  },
  // `version` checks the runtime is there (~1 s; `info` takes 10 s and more on a busy machine). crun refuses this
  // kind of host's hybrid cgroups, so the tests use runc (see the container sandbox).
  podman: {
    command: "podman",
    args: ["--runtime", "runc", "version"],
    timeoutMs: 60_000,
    cannotRun: NEEDS.podman.install,
  },
  // The client only: the Docker-socket tests serve Podman's Docker-compatible API themselves.
  docker: { command: "docker", args: ["--version"], timeoutMs: 10_000, cannotRun: NEEDS.docker.install },
  // Debian's distribution registry (2.8): the pull tests serve one on 127.0.0.1.
  registry: { command: "docker-registry", args: ["--version"], timeoutMs: 10_000, cannotRun: NEEDS.registry.install },
  // The egress bridge's forwarder (src/egress/).
  socat: { command: "socat", args: ["-V"], timeoutMs: 10_000, cannotRun: NEEDS.socat.install },
  // The stand-in for a Python project runner that cannot be set up (`python3 -m pytest`, src/checks/run-check-command.ts).
  pytest: {
    command: "python3",
    args: ["-m", "pytest", "--version"],
    timeoutMs: 30_000,
    cannotRun: NEEDS.pytest.install,
  },
  // A stable Rust toolchain: how a check of nightly-only code runs where nightly is not installed.
  cargo: { command: "cargo", args: ["--version"], timeoutMs: 30_000, cannotRun: NEEDS.cargo.install },
};

/** Probed once per test file's module registry (jest loads this module afresh for each file), then remembered. */
const known = new Map<Need, string | null>();

function probe(need: Need): string | null {
  const p = PROBES[need];
  const r = spawnSync(p.command, [...p.args], {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    timeout: p.timeoutMs,
  });
  if (r.status === 0) return null;
  const error = r.error as NodeJS.ErrnoException | undefined;
  if (error?.code === "ENOENT") return `${p.command} is not installed (${NEEDS[need].install})`;
  if (error?.code === "ETIMEDOUT") return `${p.command} did not answer within ${p.timeoutMs / 1000} s`;
  const said =
    (r.stderr ?? "").trim().split("\n").at(-1)?.slice(0, 160) || error?.message || `exit ${r.status ?? r.signal}`;
  return `${p.command} cannot run here: ${said} (${p.cannotRun})`;
}

/** Why `need` cannot be used on this machine, in one line that says what to install; null when it can. */
export function missing(need: Need): string | null {
  if (!known.has(need)) known.set(need, probe(need));
  return known.get(need)!;
}

/** Whether `need` works on this machine. */
export function has(need: Need): boolean {
  return missing(need) === null;
}

/** The first of `needs` that is missing here, and why; null when all are there. */
function firstMissing(needs: Need | readonly Need[]): { need: Need; why: string } | null {
  for (const need of typeof needs === "string" ? [needs] : needs) {
    const why = missing(need);
    if (why !== null) return { need, why };
  }
  return null;
}

/** A `describe` that runs where `needs` are there, and is otherwise skipped under a title saying what to install. */
export function describeWith(needs: Need | readonly Need[], name: string, fn: () => void): void {
  const gap = firstMissing(needs);
  if (gap) describe.skip(skipTitle(name, gap.need, gap.why), fn);
  else describe(name, fn);
}

/** An `it` that runs where `needs` are there, and is otherwise skipped under a title saying what to install. */
export function itWith(
  needs: Need | readonly Need[],
  name: string,
  fn: jest.ProvidesCallback,
  timeoutMs?: number,
): void {
  const gap = firstMissing(needs);
  if (gap) it.skip(skipTitle(name, gap.need, gap.why), fn, timeoutMs);
  else it(name, fn, timeoutMs);
}

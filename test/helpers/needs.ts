import { spawnSync } from "node:child_process";

/** Real programs some tests need; the suite runs without them, each skipped suite saying why in one line. */
export type Need = "bubblewrap" | "redis" | "podman";

const probes: Record<Need, () => string | null> = {
  bubblewrap: () => ran("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "true"], "install bubblewrap and allow user namespaces"),
  redis: () => ran("redis-server", ["--version"], "install redis-server"),
  podman: () => ran("podman", ["--runtime", "runc", "--cgroup-manager", "cgroupfs", "info", "--format", "{{.Host.OCIRuntime.Name}}"], "install podman and runc (see .ci/run)"),
};

const known = new Map<Need, string | null>();

/** Why `need` is missing here, or null when it works. */
export function missing(need: Need): string | null {
  if (!known.has(need)) known.set(need, probes[need]());
  return known.get(need) ?? null;
}

/** Whether `need` works on this machine (probed once per test file). */
export function has(need: Need): boolean {
  return missing(need) === null;
}

/** `describe` when `need` works here, else a skipped `describe` and one line saying what is missing. */
export function describeWith(need: Need, name: string, fn: () => void): void {
  const why = missing(need);
  if (why === null) return describe(name, fn);
  console.warn(`SKIPPED "${name}": ${why}`);
  describe.skip(name, fn);
}

function ran(command: string, args: string[], advice: string): string | null {
  const r = spawnSync(command, args, { stdio: "ignore", timeout: 30_000 });
  if (r.error) return `${command} is not available (${r.error.message}); ${advice}`;
  return r.status === 0 ? null : `${command} does not work here (exit ${r.status}); ${advice}`;
}

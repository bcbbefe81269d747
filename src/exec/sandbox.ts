import { existsSync } from "node:fs";
import path from "node:path";
import type { Exec, ExecRequest } from "./types.js";

export interface SandboxOptions {
  /** Directories hidden behind an empty tmpfs (home, the App key's folder, other jobs' checkouts under /tmp). */
  hide: readonly string[];
  /** Keep the network (package installs and many test suites need it). */
  network: boolean;
}

/** Whether bubblewrap is installed and user namespaces work here (often disabled in containers). */
export async function probeSandbox(exec: Exec): Promise<boolean> {
  const r = await exec.run({ command: "bwrap", args: ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "true"], cwd: "/", timeoutMs: 10_000 });
  return r.exitCode === 0;
}

/**
 * The bubblewrap form of a request: the whole file system read-only, the checkout (cwd) writable, a private /tmp,
 * `hide`n folders replaced by empty ones, separate PID/IPC/UTS namespaces, killed with its parent. The environment
 * stays the exec door's allow-list.
 */
export function sandboxRequest(req: ExecRequest, options: SandboxOptions & { gitDir?: string }): ExecRequest {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const dir of options.hide) if (!req.cwd.startsWith(`${dir}/`) && req.cwd !== dir) args.push("--tmpfs", dir);
  args.push("--bind", req.cwd, req.cwd);
  // Repo scripts may build and write in the checkout, but not plant hooks or config in its .git.
  if (options.gitDir) args.push("--ro-bind", options.gitDir, options.gitDir);
  args.push("--chdir", req.cwd, "--unshare-all");
  if (options.network) args.push("--share-net");
  args.push("--die-with-parent", "--new-session");
  const inner = req.shell ? ["/bin/sh", "-c", req.command] : [req.command, ...(req.args ?? [])];
  return { ...req, command: "bwrap", args: [...args, ...inner], shell: false };
}

/** An {@link Exec} that runs every request inside the sandbox. */
export function createSandboxedExec(exec: Exec, options: SandboxOptions): Exec {
  return {
    run: (req) => {
      const gitDir = path.join(req.cwd, ".git");
      return exec.run(sandboxRequest(req, { ...options, ...(existsSync(gitDir) ? { gitDir } : {}) }));
    },
  };
}

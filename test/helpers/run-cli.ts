import { spawn } from "node:child_process";
import { CLI_MAIN } from "./cli-entry.js";
import { WAIT_MS } from "./timeouts.js";

/**
 * Run the real, built `aider-bot` CLI in a child process. A run that has not exited within `timeoutMs` is killed and
 * the promise rejects with what it printed, so a hang fails with diagnostics before jest's own timeout.
 */
export function runCli(
  args: string[],
  options: { input?: string; env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {},
) {
  const timeoutMs = options.timeoutMs ?? WAIT_MS;
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `aider-bot ${args.join(" ")} did not exit within ${timeoutMs} ms\nstdout:\n${stdout.slice(-2000)}\nstderr:\n${stderr.slice(-2000)}`,
        ),
      );
    }, timeoutMs);
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

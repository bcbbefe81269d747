import { execa } from "execa";
import type { Exec, ExecRequest, ExecResult } from "./types.js";
import { baseEnv } from "./base-env.js";
import { capOutput } from "./cap-output.js";
import { killTree } from "./kill-tree.js";

export interface ExecOptions {
  /** The environment the allow-list is taken from (config/env's `sourceEnv()`, passed in once by the caller). */
  sourceEnv: Readonly<Record<string, string | undefined>>;
  defaultTimeoutMs?: number;
  defaultMaxOutputBytes?: number;
}

/**
 * The single place that spawns processes: allow-listed env (never the parent's secrets), timeout that kills the
 * process tree, output capped (head + tail), never throws for a non-zero exit.
 */
export function createExec(options: ExecOptions): Exec {
  const base = baseEnv(options.sourceEnv);
  return {
    async run(req: ExecRequest): Promise<ExecResult> {
      const started = Date.now();
      const maxBytes = req.maxOutputBytes ?? options.defaultMaxOutputBytes ?? 1_000_000;
      const timeoutMs = req.timeoutMs ?? options.defaultTimeoutMs ?? 600_000;
      const child = execa(req.command, [...(req.args ?? [])], {
        cwd: req.cwd,
        shell: req.shell ?? false,
        env: { ...base, ...req.env },
        extendEnv: false,
        reject: false,
        all: true,
        stripFinalNewline: false,
        cleanup: true,
        // Own process group, so a timeout kills the whole tree (a shell and what it started), not just the shell.
        detached: true,
        input: req.input,
        stdin: req.input === undefined ? "ignore" : "pipe",
        maxBuffer: Math.max(maxBytes * 4, 10_000_000),
      });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        if (child.pid !== undefined) killTree(child.pid);
      }, timeoutMs);
      const onAbort = () => {
        if (child.pid !== undefined) killTree(child.pid);
      };
      req.signal?.addEventListener("abort", onAbort, { once: true });
      if (req.signal?.aborted) onAbort();
      const result = await child.finally(() => {
        clearTimeout(timer);
        req.signal?.removeEventListener("abort", onAbort);
      });
      const spawnError = result.failed && result.exitCode === undefined && !timedOut ? result.shortMessage : undefined;
      return {
        exitCode: result.exitCode ?? null,
        output: capOutput(String(result.all ?? ""), maxBytes),
        stdout: capOutput(String(result.stdout ?? ""), maxBytes),
        stderr: capOutput(String(result.stderr ?? ""), maxBytes),
        timedOut,
        durationMs: Date.now() - started,
        ...(spawnError ? { spawnError } : {}),
      };
    },
  };
}

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { baseEnv } from "./base-env.js";

/**
 * Spawn a process with piped streams, for the rare caller that must stream (the demo's git CGI bridge).
 * Same env rule as {@link createExec}: an allow-list of the source env plus explicit extras.
 */
export function spawnStream(
  command: string,
  args: readonly string[],
  options: { cwd: string; sourceEnv: Readonly<Record<string, string | undefined>>; env?: Record<string, string> },
): ChildProcessWithoutNullStreams {
  return spawn(command, [...args], { cwd: options.cwd, env: { ...baseEnv(options.sourceEnv), ...options.env } });
}

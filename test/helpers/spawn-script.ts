import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { builtScript, TEST_SCRIPTS } from "./build-once.js";
import { waitUntil } from "./wait-until.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** One JSON line a script printed on stdout. */
export type ScriptEvent = Record<string, unknown> & { ev: string };

export interface ScriptProcess {
  child: ChildProcess;
  events: ScriptEvent[];
  /** Send a JSON command line on the script's stdin. */
  send(command: Record<string, unknown>): void;
  /** Poll the events until one matches (no fixed sleep); throws with what was seen after `timeoutMs`. */
  waitFor(match: (e: ScriptEvent) => boolean, timeoutMs?: number): Promise<ScriptEvent>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/**
 * Starts a test script (path relative to the repository root) as its own Node process, the one way tests start
 * worker processes. A script listed in build-once.js's TEST_SCRIPTS runs as jest's global setup built it (plain
 * JavaScript); any other through `node --import tsx`.
 */
export function spawnScript(script: string, args: string[]): ScriptProcess {
  const argv = TEST_SCRIPTS.includes(script) ? [builtScript(script), ...args] : ["--import", "tsx", script, ...args];
  const child = spawn(process.execPath, argv, { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  const events: ScriptEvent[] = [];
  let buffer = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        events.push(JSON.parse(line) as ScriptEvent);
      } catch {
        // Not one of our event lines (a library printing): keep it with stderr for the failure message.
        err += line + "\n";
      }
    }
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    events,
    send: (command) => child.stdin!.write(JSON.stringify(command) + "\n"),
    stderr: () => err,
    exited,
    async waitFor(match, timeoutMs = 20_000) {
      await waitUntil(
        () => events.some(match),
        () => `${script}: no matching event; events: ${JSON.stringify(events)}\nstderr: ${err}`,
        timeoutMs,
      );
      const found = events.find(match);
      if (!found) throw new Error(`${script}: a matching event was seen, then not found`); // events only grow
      return found;
    },
  };
}

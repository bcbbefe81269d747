import { statSync } from "node:fs";
import type { Exec, ExecRequest, ExecResult, WaitingProcess } from "./types.js";

/**
 * Sandboxes started ahead of their commands (bubblewrap). A command's start in the sandbox used to pay, before its
 * first instruction, for bwrap's namespaces and mounts and, under the `registries` policy, for the egress forwarder's
 * start inside (measured: 6–15 ms and 8–20 ms of a trivial command on an idle machine, several times that on a busy
 * one). A sandbox started ahead runs exactly the bwrap command line the command would get — every mount, variable,
 * namespace and the forwarder — with one difference: where the command would be, a small shell (the
 * {@link WAITING_STUB}) waits on its fd 3 for the command's argv, then replaces itself with it. So the command keeps
 * what it had: its process is bwrap's child's child in the same namespaces, it inherits the same environment, its
 * output goes to the same pipes and a kill of bwrap's process tree ends it.
 *
 * Pure rule for using one: a request is served by a ready sandbox only when the sandbox's bwrap command line and
 * environment, written for that request, are equal word for word to those of the sandbox waiting (its key), and the
 * checkout folder and its `.git` are still the very folders (device and inode) that were mounted. Anything else runs
 * as before, in a sandbox of its own.
 */

/**
 * What runs in a sandbox started ahead, in the command's place: wait for one line on fd 3 (the command's argv, each
 * word single-quoted, see {@link handoverLine}), close fd 3, and `exec` it. A sandbox discarded unused reads end of
 * file and ends. Only the shell's own built-ins run before the command.
 */
export const WAITING_STUB: readonly string[] = [
  "/bin/sh",
  "-c",
  [`aider_nl='\n'`, `IFS= read -r aider_line <&3 || exit 0`, `exec 3<&-`, `eval "exec $aider_line"`].join("\n"),
  "aider-sandbox-ahead",
];

/**
 * The line that hands `argv` to the {@link WAITING_STUB} (pure): every word single-quoted, a newline inside a word
 * written as the stub's `$aider_nl` (one line is read), so `eval "exec …"` rebuilds exactly these words.
 *
 * @example handoverLine(["/bin/sh", "-c", "echo 'a'\ntrue"]) // `'/bin/sh' '-c' 'echo '\''a'\'''"$aider_nl"'true'`
 */
export function handoverLine(argv: readonly string[]): string {
  return argv.map((w) => `'${w.replace(/'/g, `'\\''`).replace(/\n/g, `'"$aider_nl"'`)}'`).join(" ");
}

/** Whether a request may be handed to a sandbox started ahead: a shell command line at normal priority, no input. */
export function servedAhead(req: ExecRequest): boolean {
  return req.shell === true && (req.priority ?? "normal") === "normal" && req.input === undefined;
}

/** A request's sandbox, in its two forms: with the command (today's), and waiting in the command's place. */
export interface SandboxForms {
  /** The bwrap request that runs the command. */
  run: ExecRequest;
  /** The same bwrap request with the {@link WAITING_STUB} in the command's place (null: not served ahead). */
  waiting: ExecRequest | null;
  /** The folders mounted by path whose identity must not have changed since (the checkout, its `.git`). */
  mounted: readonly string[];
}

export interface SandboxAhead {
  /** Run `forms.run`, through the sandbox started ahead for it when there is one; starts the next one ahead. */
  run(forms: SandboxForms, req: ExecRequest): Promise<ExecResult>;
  /** Start a sandbox ahead for `forms` (nothing when one waits for the same key already, or after `close`). */
  start(forms: SandboxForms): void;
  /** Discard every sandbox still waiting; resolves when they have ended. Later requests run as before. */
  close(): Promise<void>;
  /** How many wait (tests). */
  size(): number;
}

/** At most this many sandboxes wait at once (a run's checks have one shape; the oldest goes first). */
const MAX_WAITING = 2;

export function createSandboxAhead(exec: Exec): SandboxAhead {
  const ready = new Map<string, { process: WaitingProcess; identity: string }>();
  let closed = false;

  const start = (forms: SandboxForms): void => {
    if (closed || !forms.waiting || !exec.startWaiting) return;
    const key = keyOf(forms.waiting);
    if (ready.has(key)) return;
    const identity = identityOf(forms.mounted);
    if (identity === null) return;
    if (ready.size >= MAX_WAITING) {
      const [oldest, entry] = ready.entries().next().value!;
      ready.delete(oldest);
      void entry.process.discard();
    }
    ready.set(key, { process: exec.startWaiting(forms.waiting), identity });
  };

  return {
    start,
    async run(forms, req) {
      const key = forms.waiting ? keyOf(forms.waiting) : null;
      const entry = key !== null ? ready.get(key) : undefined;
      if (key !== null) ready.delete(key);
      if (entry && entry.identity === identityOf(forms.mounted)) {
        const command = req.shell ? ["/bin/sh", "-c", req.command] : [req.command, ...(req.args ?? [])];
        const handed = entry.process.hand(handoverLine(command), {
          ...(forms.run.timeoutMs !== undefined ? { timeoutMs: forms.run.timeoutMs } : {}),
          ...(req.signal ? { signal: req.signal } : {}),
          ...(req.urgent ? { urgent: req.urgent } : {}),
        });
        // The next command's sandbox gets ready while this one runs.
        start(forms);
        const result = await handed;
        if (result) return { ...result, ahead: true };
      } else {
        if (entry) void entry.process.discard();
        start(forms);
      }
      return exec.run(forms.run);
    },
    async close() {
      closed = true;
      const all = [...ready.values()];
      ready.clear();
      await Promise.all(all.map((e) => e.process.discard()));
    },
    size: () => ready.size,
  };
}

/** What must be equal for a waiting sandbox to serve a request: its whole bwrap command line, environment, folder and output cap. */
function keyOf(req: ExecRequest): string {
  return JSON.stringify([req.command, req.args ?? [], req.env ?? {}, req.cwd, req.maxOutputBytes ?? null]);
}

/** The device and inode of each folder mounted by path (null: one is missing, nothing is started ahead). */
function identityOf(paths: readonly string[]): string | null {
  try {
    return paths
      .map((p) => {
        const s = statSync(p, { bigint: true });
        return `${s.dev}:${s.ino}`;
      })
      .join(",");
  } catch {
    return null;
  }
}

import type { ProcessPriority } from "./types.js";

/** The niceness of background work: CFS gives a nice-10 task about a tenth of a nice-0 task's share of a busy core. */
export const BACKGROUND_NICE = 10;

/** The command's name in `ps` while the wrapper starts it (it then replaces itself with the command). */
const WRAPPER_NAME = "aider-bot-background";

/**
 * The shell prologue that lowers the priority of everything started after it, then replaces itself with the command
 * (`"$@"`), so the command keeps the wrapper's process id (a timeout or a stop kills it as before).
 *
 * - The session's autogroup (`/proc/self/autogroup`): every command runs in a session of its own (its own process
 *   group and `setsid`, bubblewrap's `--new-session`), and where the kernel groups tasks by session (autogroup, the
 *   default on desktop-style kernels, active while the processes sit in the root CPU cgroup) a task's nice value only
 *   counts against its own session's tasks: two sessions share a busy core half and half whatever their nice values
 *   (measured here: 152 vs 153 ticks with nice 10 in a session of its own, 207 vs 22 with the autogroup's nice set as
 *   well). The write is limited to one per 100 ms machine-wide for a process without CAP_SYS_ADMIN (EAGAIN): tried
 *   three times, 0.1 s apart.
 * - I/O: the lowest best-effort class level (`ionice -c 2 -n 7`), where util-linux's `ionice` is installed; ignored
 *   where the I/O scheduler has no priorities.
 * - CPU: `nice -n 10` (inherited by every process the command starts), where `nice` is installed.
 *
 * Each step is skipped where it cannot be done: a command never fails for its priority.
 */
function prologue(autogroup: boolean): string {
  const steps = [
    ...(autogroup
      ? [
          `if [ -e /proc/self/autogroup ]; then for _ in 1 2 3; do { echo ${BACKGROUND_NICE} >/proc/self/autogroup; } 2>/dev/null && break; sleep 0.1 2>/dev/null || break; done; fi`,
        ]
      : []),
    "command -v ionice >/dev/null 2>&1 && ionice -t -c 2 -n 7 -p $$ >/dev/null 2>&1",
    `command -v nice >/dev/null 2>&1 && exec nice -n ${BACKGROUND_NICE} "$@"`,
    'exec "$@"',
  ];
  return steps.join("\n");
}

/**
 * `argv` as run at `priority` (pure): unchanged for `normal`; for `background`, behind a `/bin/sh` prologue that lowers
 * its CPU and I/O priority and that of every process it starts (see {@link prologue}).
 *
 * @param options.autogroup whether the command runs where the kernel's per-session autogroup applies: on the host and
 *   in bubblewrap; not in a container (its own CPU cgroup, where the engine's CPU shares weigh it instead).
 * @example priorityArgv(["make", "test"], "background", { autogroup: true })
 *   // ["/bin/sh", "-c", "…exec nice -n 10 \"$@\"…", "aider-bot-background", "make", "test"]
 */
export function priorityArgv(
  argv: readonly string[],
  priority: ProcessPriority | undefined,
  options: { autogroup: boolean },
): string[] {
  if (priority !== "background") return [...argv];
  return ["/bin/sh", "-c", prologue(options.autogroup), WRAPPER_NAME, ...argv];
}

/**
 * The CPU shares of a container whose commands are background work (Docker's and Podman's `--cpu-shares`, against
 * the default 1024): the weight CFS gives nice 10. Inside a container the autogroup does not apply and a nice value
 * only weighs against the container's own processes; between containers (each its own CPU cgroup) the shares decide.
 */
export const BACKGROUND_CPU_SHARES = 110;

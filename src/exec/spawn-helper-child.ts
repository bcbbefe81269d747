// The entry of the spawn helper started by spawn-helper.ts: runs the processes its parent asks for, answers their
// results, and kills whatever still runs when the parent goes away.
import { runProcess, startWaitingProcess } from "./create-exec.js";
import type { HelperRequest, HelperAnswer } from "./spawn-helper.js";
import type { ExecResult, WaitingProcess } from "./types.js";

const running = new Map<number, AbortController>();
const urgent = new Map<number, AbortController>();
/** Processes started ahead and not handed over yet (see exec/waiting-process). */
const waiting = new Map<number, WaitingProcess>();

const answer = (id: number, result: ExecResult | null) => {
  running.delete(id);
  urgent.delete(id);
  // The parent may be gone by now (its disconnect below kills the rest): nothing to answer to.
  if (process.connected) process.send?.({ type: "done", id, result } satisfies HelperAnswer);
};

process.on("message", (m: HelperRequest) => {
  if (m.type === "wait") {
    waiting.set(m.id, startWaitingProcess(m.req, m.env, m.defaults));
    return;
  }
  if (m.type === "discard") {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    void (w?.discard() ?? Promise.resolve()).then(() => answer(m.id, null));
    return;
  }
  if (m.type === "hand") {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (!w) return answer(m.id, null);
    const controller = new AbortController();
    const raise = new AbortController();
    running.set(m.id, controller);
    urgent.set(m.id, raise);
    const opts = { signal: controller.signal, urgent: raise.signal };
    void w
      .hand(m.line, m.timeoutMs !== undefined ? { ...opts, timeoutMs: m.timeoutMs } : opts)
      .then((result) => answer(m.id, result));
    return;
  }
  if (m.type === "kill") {
    running.get(m.id)?.abort();
    return;
  }
  if (m.type === "urgent") {
    urgent.get(m.id)?.abort();
    return;
  }
  const controller = new AbortController();
  const raise = new AbortController();
  running.set(m.id, controller);
  urgent.set(m.id, raise);
  void runProcess({ ...m.req, signal: controller.signal, urgent: raise.signal }, m.env, m.defaults).then((result) =>
    answer(m.id, result),
  );
});

// The parent ended, crashed or was killed (a job process takes SIGKILL after a stop it ignored): the processes it
// started must not outlive it, pushing or running tests for nobody. Aborting kills each one's whole tree at once.
process.on("disconnect", () => {
  for (const controller of running.values()) controller.abort();
  for (const w of waiting.values()) void w.discard();
  process.exit(0);
});

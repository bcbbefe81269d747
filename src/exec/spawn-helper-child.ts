// The entry of the spawn helper started by spawn-helper.ts: runs the processes its parent asks for, answers their
// results, and kills whatever still runs when the parent goes away.
import { runProcess } from "./create-exec.js";
import type { HelperRequest, HelperAnswer } from "./spawn-helper.js";

const running = new Map<number, AbortController>();
const urgent = new Map<number, AbortController>();

process.on("message", (m: HelperRequest) => {
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
  void runProcess({ ...m.req, signal: controller.signal, urgent: raise.signal }, m.env, m.defaults).then((result) => {
    running.delete(m.id);
    urgent.delete(m.id);
    const answer: HelperAnswer = { type: "done", id: m.id, result };
    // The parent may be gone by now (its disconnect below kills the rest): nothing to answer to.
    if (process.connected) process.send?.(answer);
  });
});

// The parent ended, crashed or was killed (a job process takes SIGKILL after a stop it ignored): the processes it
// started must not outlive it, pushing or running tests for nobody. Aborting kills each one's whole tree at once.
process.on("disconnect", () => {
  for (const controller of running.values()) controller.abort();
  process.exit(0);
});

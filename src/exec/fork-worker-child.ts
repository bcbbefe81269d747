// The entry of a job process started by fork-worker.ts: waits for the job over IPC, runs it, answers, exits.
import type { ChildJob } from "./fork-worker.js";

type FromParent = { type: "run"; module: string; input: unknown } | { type: "stop"; reason: string };

const controller = new AbortController();

const answer = (message: unknown) =>
  new Promise<void>((resolve) => {
    process.send!(message, () => resolve());
  });

process.on("message", (m: FromParent) => {
  if (m.type === "stop") {
    controller.abort(new Error(m.reason));
    return;
  }
  void (async () => {
    try {
      const mod = (await import(m.module)) as { runJob?: ChildJob };
      if (typeof mod.runJob !== "function") throw new Error(`${m.module} does not export runJob`);
      const result = await mod.runJob(m.input, controller.signal, (message) => process.send!({ type: "message", message }));
      await answer({ type: "done", result });
    } catch (error) {
      await answer({ type: "failed", message: error instanceof Error ? error.message : String(error) });
    }
    process.disconnect();
    // Handles the job left open (timers, sockets) must not keep a finished job process alive.
    process.exit(0);
  })();
});

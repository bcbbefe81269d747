import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A throwaway redis-server on a free port, without persistence; `stop()` kills it. Tests using it run under `describeWith("redis", …)` (test/helpers/needs.ts). */
export async function startRedisServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  const deadline = Date.now() + 10_000;
  while (!out.includes("Ready to accept connections")) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`redis-server did not start on port ${port}: ${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

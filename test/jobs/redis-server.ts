import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { waitUntil } from "../helpers/wait-until.js";

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
  const ready = () => out.includes("Ready to accept connections");
  await waitUntil(
    () => ready() || child.exitCode !== null,
    () => `redis-server did not start on port ${port}: ${out}`,
  );
  if (!ready()) throw new Error(`redis-server exited on port ${port}: ${out}`);
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

/**
 * Counts the commands any client sends the server that `match` accepts (through MONITOR): a test's positive
 * signal that another process has done something again (swept, checked a key's head) instead of a sleep.
 * `const sweeps = await watchCommands(url, (c) => c[0] === "zrangebyscore"); await waitUntil(() => sweeps.count() >= 3, …)`
 */
export async function watchCommands(
  url: string,
  match: (command: string[]) => boolean,
): Promise<{ count(): number; close(): void }> {
  const monitor = await new Redis(url).monitor();
  let seen = 0;
  monitor.on("monitor", (_time: string, args: string[]) => {
    if (match([String(args[0]).toLowerCase(), ...args.slice(1)])) seen++;
  });
  return { count: () => seen, close: () => monitor.disconnect() };
}

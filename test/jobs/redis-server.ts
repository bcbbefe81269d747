import { spawn, type ChildProcess } from "node:child_process";
import { connect, createServer } from "node:net";
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
 * Counts the commands any client sends the server that `match` accepts (a raw MONITOR connection; each command
 * comes as a `+<time> [db addr] "cmd" "arg" …` line): a test's positive signal that another process has done
 * something again (swept, checked a key's head) instead of a sleep.
 * `const sweeps = await watchCommands(url, (c) => c[0] === "zrangebyscore"); await waitUntil(() => sweeps.count() >= 3, …)`
 */
export async function watchCommands(
  url: string,
  match: (command: string[]) => boolean,
): Promise<{ count(): number; close(): void }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let seen = 0;
  let accepted = false;
  let buffer = "";
  socket.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\r\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 2);
      if (line === "+OK") accepted = true;
      const words = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? "");
      if (words.length > 0 && match([(words[0] ?? "").toLowerCase(), ...words.slice(1)])) seen++;
    }
  });
  socket.on("error", () => undefined); // closed with the server at the end of the suite
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  socket.write("MONITOR\r\n");
  await waitUntil(() => accepted, "redis-server to accept MONITOR");
  return { count: () => seen, close: () => socket.destroy() };
}

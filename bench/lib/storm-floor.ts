/**
 * The floor of the storm's ack time on this machine: the same waves of signed deliveries, sent by the same sender
 * thread, to a bare Node receiver in a process of its own that does the least any webhook endpoint must (read the
 * body, check its signature, parse it, answer) and, in the second variant, also records each delivery durably (one
 * LMDB commit per burst, as the embedded queue does). The app's ack percentiles are printed beside these, so a
 * target is read against what this host allows, not against a number from a quieter machine.
 */
import { fork } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sendStorm, type StormDelivery } from "./storm-sender.js";

export interface FloorResult {
  label: string;
  acks: number[];
}

// Plain CommonJS run by `node` (no TypeScript loader): the floor must not pay for anything the app does not.
const RECEIVER = `
const http = require("node:http");
const { createHmac, timingSafeEqual } = require("node:crypto");
const [secret, storePath] = process.argv.slice(2);
let db, batch = [];
if (storePath) db = require(process.env.FLOOR_LMDB).open({ path: storePath, compression: false });
const record = (id) => new Promise((resolve, reject) => {
  batch.push({ id, resolve, reject });
  if (batch.length > 1) return;
  setImmediate(() => {
    const pending = batch;
    batch = [];
    db.transaction(() => {
      for (const p of pending) if (db.get(["seen", p.id]) === undefined) db.putSync(["seen", p.id], Date.now());
    }).then(() => pending.forEach((p) => p.resolve()), (e) => pending.forEach((p) => p.reject(e)));
  });
});
http.createServer((req, res) => {
  const hmac = createHmac("sha256", secret);
  const chunks = [];
  req.on("data", (c) => { hmac.update(c); chunks.push(c); });
  req.on("end", async () => {
    const given = Buffer.from(String(req.headers["x-hub-signature-256"] || ""));
    const expected = Buffer.from("sha256=" + hmac.digest("hex"));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return res.writeHead(401).end();
    JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (db) await record(String(req.headers["x-github-delivery"]));
    res.writeHead(202, { "content-type": "application/json" }).end('{"message":"ok"}');
  });
}).listen(0, "127.0.0.1", function () { process.send(this.address().port); });
`;

/** Sends `waves` to the bare receiver, then to the one with a durable record; each in a fresh process. */
export async function measureStormFloor(secret: string, waves: StormDelivery[][]): Promise<FloorResult[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "storm-floor-"));
  try {
    const script = path.join(dir, "receiver.cjs");
    writeFileSync(script, RECEIVER);
    const results: FloorResult[] = [];
    for (const durable of [false, true]) {
      const child = fork(script, [secret, ...(durable ? [path.join(dir, "store")] : [])], {
        env: { PATH: process.env.PATH ?? "", FLOOR_LMDB: createRequire(import.meta.url).resolve("lmdb") },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      try {
        const port = await new Promise<number>((resolve, reject) => {
          child.once("message", (p) => resolve(p as number));
          child.once("exit", (code) => reject(new Error(`the floor receiver exited with ${code}`)));
        });
        const { acks } = await sendStorm(`http://127.0.0.1:${port}/`, secret, waves);
        results.push({
          label: durable
            ? "bare receiver + durable record (LMDB, one commit per burst)"
            : "bare receiver (verify, parse, answer)",
          acks: acks.map((a) => a.ms),
        });
      } finally {
        child.kill("SIGKILL");
      }
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Sends a storm of webhook deliveries from a worker thread of its own, with raw `node:http` requests signed before
 * the clock starts. The bench's main thread also plays GitHub (the fake answers every call the app makes); were the
 * deliveries sent from there, an ack would be timed late by however busy that fake is, and `fetch`'s own cost per
 * request (about 2 ms here) would be counted as the app's. An ack is timed from the request's last byte written to
 * the answer's status line.
 */
import { Worker } from "node:worker_threads";

export interface StormDelivery {
  id: string;
  event: string;
  payload: unknown;
}

export interface StormAck {
  id: string;
  /** When the request was sent, ms after the storm began (in the main thread's clock: performance.timeOrigin based). */
  sentAt: number;
  ms: number;
  status: number;
}

interface Job {
  url: string;
  secret: string;
  /** Sent together at once, then `then` once all of those are answered. */
  waves: StormDelivery[][];
}

/** Send the waves (each all at once, one after the other) from a worker thread; resolves with every ack. */
export function sendStorm(
  url: string,
  secret: string,
  waves: StormDelivery[][],
): Promise<{ acks: StormAck[]; t0: number }> {
  return new Promise((resolve, reject) => {
    // Plain JavaScript evaluated in the thread: no TypeScript loader needed there.
    const worker = new Worker(SENDER, { eval: true, workerData: { url, secret, waves } satisfies Job });
    worker.once("message", (m: { acks: StormAck[]; t0: number }) => resolve(m));
    worker.once("error", reject);
    worker.once("exit", (code) => code !== 0 && reject(new Error(`the storm sender exited with ${code}`)));
  });
}

const SENDER = `
const { createHmac } = require("node:crypto");
const http = require("node:http");
const { parentPort, workerData: job } = require("node:worker_threads");
(async () => {
  const target = new URL(job.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const signed = job.waves.map((wave) =>
    wave.map((d) => {
      const body = Buffer.from(JSON.stringify(d.payload));
      const headers = {
        "content-type": "application/json",
        "content-length": String(body.length),
        "user-agent": "GitHub-Hookshot/bench",
        "x-github-event": d.event,
        "x-github-delivery": d.id,
        "x-hub-signature-256": "sha256=" + createHmac("sha256", job.secret).update(body).digest("hex"),
      };
      return { id: d.id, body, headers };
    }),
  );
  const origin = performance.timeOrigin;
  const start = performance.now();
  const post = (s) =>
    new Promise((done, fail) => {
      const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers: s.headers, agent });
      // Timed from when the request's last byte is handed to the socket: before that, the time is this sender's
      // own (185 sockets connecting and written from one thread), not the app's.
      let sent = performance.now();
      req.on("response", (res) => {
        const ms = performance.now() - sent;
        res.resume();
        done({ id: s.id, sentAt: sent - start, ms, status: res.statusCode || 0 });
      });
      req.on("error", fail);
      req.end(s.body, () => {
        sent = performance.now();
      });
    });
  const acks = [];
  for (const wave of signed) acks.push(...(await Promise.all(wave.map(post))));
  agent.destroy();
  parentPort.postMessage({ acks, t0: origin + start });
})();
`;

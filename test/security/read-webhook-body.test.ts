import { createHmac } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { createBufferBudget, readWebhookBody, type BufferBudget } from "../../src/security/read-webhook-body.js";

const SECRET = "s3cret";
const budget = (limit: number, inFlightLimit = 4 * limit): BufferBudget =>
  createBufferBudget(limit, { inFlightLimit, smallBodyLimit: 0 });

/** A request body arriving in `chunks` (then ended, unless `open`). */
function body(chunks: string[], open = false): IncomingMessage {
  const s = new PassThrough();
  for (const c of chunks) s.write(Buffer.from(c));
  if (!open) s.end();
  return s as unknown as IncomingMessage;
}

describe("readWebhookBody", () => {
  it("reads the whole body with its HMAC, holds its bytes in the budget until released", async () => {
    const b = budget(100);
    const read = await readWebhookBody(body(['{"a":', "1}"]), SECRET, b);
    expect(read.refused).toBeNull();
    expect(Buffer.concat(read.chunks).toString()).toBe('{"a":1}');
    expect(read.digest()).toBe(createHmac("sha256", SECRET).update('{"a":1}').digest("hex"));
    expect(b).toMatchObject({ buffered: 7, peak: 7 });
    read.release();
    read.release(); // twice is harmless
    expect(b).toMatchObject({ buffered: 0, peak: 7 });
  });

  it("stops as soon as the body passes the limit (413), keeping no more than the limit", async () => {
    const b = budget(10);
    const read = await readWebhookBody(body(["12345678", "90ab", "cdef"], true), SECRET, b);
    expect(read.refused).toMatchObject({ status: 413, verdict: "too large" });
    expect(read.size).toBe(8);
    read.release();
    expect(b.buffered).toBe(0);
  });

  it("answers 503 when all requests together would hold more than the in-flight limit", async () => {
    const b = budget(10, 12);
    b.buffered = b.largeBuffered = 8; // other deliveries being read
    const read = await readWebhookBody(body(["12345"], true), SECRET, b);
    expect(read.refused).toMatchObject({ status: 503, verdict: "busy" });
    expect(b.buffered).toBe(8);
  });

  it("a request that errors part way is refused as aborted (400)", async () => {
    const req = body(["12"], true);
    setImmediate(() => (req as unknown as PassThrough).destroy(new Error("socket reset")));
    const read = await readWebhookBody(req, SECRET, budget(100));
    expect(read.refused).toMatchObject({ status: 400, verdict: "aborted" });
  });

  it("charges a body that declares a small size to the reserve, which large bodies cannot take", async () => {
    const b = createBufferBudget(100, { inFlightLimit: 100, smallBodyLimit: 10, smallInFlightLimit: 20 });
    b.buffered = b.largeBuffered = 100; // large bodies hold their whole budget
    const req = body(["12345"]);
    req.headers = { "content-length": "5" };
    const read = await readWebhookBody(req, SECRET, b);
    expect(read.refused).toBeNull();
    expect(b).toMatchObject({ smallBuffered: 5, largeBuffered: 100, buffered: 105 });
    read.release();
    expect(b).toMatchObject({ smallBuffered: 0, buffered: 100 });
    // A large body finds no room: the reserve is not its to use.
    const big = body(["x".repeat(11)], true);
    big.headers = { "content-length": "50" };
    expect((await readWebhookBody(big, SECRET, b)).refused).toMatchObject({ status: 503 });
  });

  it("refuses a body that is still arriving at its deadline (408), giving its bytes back on release", async () => {
    const b = createBufferBudget(100, { timeoutMs: 100 });
    const read = await readWebhookBody(body(["123"], true), SECRET, b);
    expect(read.refused).toMatchObject({ status: 408, verdict: "too slow" });
    read.release();
    expect(b.buffered).toBe(0);
  });
});

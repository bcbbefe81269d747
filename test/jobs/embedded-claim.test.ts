import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claim, heartbeat } from "../../src/jobs/embedded-claim.js";
import type { JobRecord } from "../../src/jobs/embedded-store.js";
import { openEmbeddedWorker, type EmbeddedWorker } from "../../src/jobs/embedded-worker.js";

/**
 * The embedded engine's claim over a real LMDB store, one transaction at a time and without its loop: which queued
 * jobs start (order per key, concurrency, per-installation limit, backoff), and what lease recovery does with a job
 * whose worker stopped renewing its lease (re-queue, give up past the attempts, drop if cancelled, renew our own).
 */
let dir: string;
let w: EmbeddedWorker<string>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "embedded-claim-"));
  w = open();
});
afterEach(async () => {
  await w.store.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(extra: Record<string, unknown> = {}): EmbeddedWorker<string> {
  return openEmbeddedWorker<string>({
    path: join(dir, "db"),
    handler: async () => {},
    concurrency: 3,
    perInstallation: 2,
    attempts: 2,
    leaseMs: 60_000,
    ...extra,
  });
}

const enqueue = (id: string, key: string, installationId = 1) =>
  w.store.enqueue({ id, key, installationId, kind: "run", data: `data of ${id}` });
const claimNow = () => w.store.tx(() => claim(w));
const claimedIds = async () => (await claimNow()).claimed.map((c) => c.job.id);
const byId = (id: string) => w.store.records().find((r) => r.id === id);
/** Rewrites a record (as another process would have left it). */
const put = (r: JobRecord<string>) => w.store.tx(() => w.store.put(r));
const lapsed = (r: JobRecord<string>, owner = "dead-host:1:abcd") =>
  ({ ...r, state: "running", owner, leaseUntil: Date.now() - 1, attempt: r.attempt + 1 }) as JobRecord<string>;

describe("embedded claim", () => {
  it("starts the oldest job of each key only, marks it running under this worker with its data and first attempt", async () => {
    for (const [id, key] of [
      ["a1", "r#1"],
      ["a2", "r#1"],
      ["b1", "r#2"],
    ] as const)
      await enqueue(id, key);
    const { claimed, abandoned } = await claimNow();
    expect(claimed.map((c) => c.job)).toEqual([
      { id: "a1", key: "r#1", installationId: 1, kind: "run", data: "data of a1", attempt: 1 },
      { id: "b1", key: "r#2", installationId: 1, kind: "run", data: "data of b1", attempt: 1 },
    ]);
    expect(abandoned).toEqual([]);
    expect(byId("a1")).toMatchObject({ state: "running", owner: w.me });
    expect(byId("a2")).toMatchObject({ state: "queued" });
    // a1 still runs (in the store): a2 waits behind it.
    expect(await claimedIds()).toEqual([]);
  });

  it("holds the per-installation limit and this process's concurrency", async () => {
    for (const id of ["i1", "i2", "i3"]) await enqueue(id, `r#${id}`, 7);
    await enqueue("j1", "r#j1", 8);
    await enqueue("j2", "r#j2", 8);
    // Installation 7 gets 2 slots; concurrency 3 leaves one for installation 8.
    expect(await claimedIds()).toEqual(["i1", "i2", "j1"]);
  });

  it("a job waiting out its backoff blocks its key without starting", async () => {
    await enqueue("x1", "r#1");
    await enqueue("x2", "r#1");
    const x1 = byId("x1")!;
    await put({ ...x1, notBefore: Date.now() + 60_000 });
    expect(await claimedIds()).toEqual([]);
  });

  it("claims nothing once a shutdown began, or without a handler (an enqueue-only process)", async () => {
    await enqueue("s1", "r#1");
    w.stopping = true;
    expect(await claimedIds()).toEqual([]);
    w.stopping = false;
    const receiver = open({ handler: undefined });
    try {
      expect((await receiver.store.tx(() => claim(receiver))).claimed).toEqual([]);
    } finally {
      await receiver.store.close();
    }
    expect(await claimedIds()).toEqual(["s1"]);
  });
});

describe("embedded lease recovery", () => {
  it("re-queues a job whose worker's lease lapsed and starts it again as its next attempt", async () => {
    await enqueue("l1", "r#1");
    await put(lapsed(byId("l1")!));
    const { claimed, abandoned } = await claimNow();
    expect(claimed.map((c) => [c.job.id, c.job.attempt])).toEqual([["l1", 2]]);
    expect(abandoned).toEqual([]);
  });

  it("gives a lapsed job up on its last attempt, and removes it", async () => {
    await enqueue("l2", "r#1");
    const r = byId("l2")!;
    await put({ ...lapsed(r), attempt: 2 });
    const { claimed, abandoned } = await claimNow();
    expect(claimed).toEqual([]);
    expect(abandoned.map((j) => [j.id, j.attempt, j.data])).toEqual([["l2", 2, "data of l2"]]);
    expect(byId("l2")).toBeUndefined();
  });

  it("drops a lapsed job a user had cancelled: nothing to re-run or report", async () => {
    await enqueue("l3", "r#1");
    await put({ ...lapsed(byId("l3")!), cancel: true });
    expect(await claimNow()).toEqual({ claimed: [], abandoned: [] });
    expect(byId("l3")).toBeUndefined();
  });

  it("renews (never re-runs) a lapsed job this process still runs: it was only too busy to renew in time", async () => {
    await enqueue("l4", "r#1");
    const mine = lapsed(byId("l4")!, w.me);
    await put(mine);
    w.local.set(mine.seq, {
      record: mine,
      job: w.store.asJob(mine),
      controller: new AbortController(),
      done: Promise.resolve(),
    });
    expect(await claimNow()).toEqual({ claimed: [], abandoned: [] });
    expect(byId("l4")).toMatchObject({ state: "running", owner: w.me });
    expect(byId("l4")!.leaseUntil!).toBeGreaterThan(Date.now());
  });

  it("a heartbeat renews the leases of this process's jobs and returns those cancelled from elsewhere", async () => {
    await enqueue("h1", "r#1");
    await enqueue("h2", "r#2");
    const claimed = (await claimNow()).claimed;
    for (const c of claimed)
      w.local.set(c.record.seq, {
        record: c.record,
        job: c.job,
        controller: new AbortController(),
        done: Promise.resolve(),
      });
    const h2 = byId("h2")!;
    await put({ ...h2, cancel: true, leaseUntil: Date.now() - 1 });
    const cancelled = await w.store.tx(() => heartbeat(w));
    expect(cancelled.map((l) => l.job.id)).toEqual(["h2"]);
    expect(byId("h2")!.leaseUntil!).toBeGreaterThan(Date.now());
    expect(w.store.workersSince(Date.now() - 1000)).toBe(1);
  });
});

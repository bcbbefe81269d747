import { createJobTokenPrefetch } from "../../src/app/job-token-prefetch.js";
import { createReadBook, createReadsPrefetch, type ReadJobInputs } from "../../src/app/reads-prefetch.js";
import { readAheadRequest } from "../../src/app/run-job-process.js";
import { readsAheadFor } from "../../src/app/run-reads.js";
import type { RecordedRead } from "../../src/github/read-ahead.js";
import { issueTarget, prTarget, runRequest } from "#testkit/builders/run-fixtures.js";
import { handleOneRun, poolAsking, RUN_JOB } from "../helpers/handle-one-run.js";

const read = (data: unknown): RecordedRead => ({ status: 200, url: "u", headers: {}, data });
const turn = () => new Promise((r) => setImmediate(r));

/** Reads that answer `GET tree` with the token they were given (and note each token they were started with). */
function treeReads(tokens: string[] = []): ReadJobInputs {
  return async (_req, token, onRead) => {
    tokens.push(token);
    onRead("GET tree", Promise.resolve(read(token)));
  };
}

describe("createReadsPrefetch: a job's first GitHub reads made at triage, taken by its handler", () => {
  const req = runRequest({ jobId: "d1", installationId: 7, repo: "web", target: prTarget() });

  it("reads once the job's API token is minted, with it, and hands the reads out once", async () => {
    const tokens: string[] = [];
    const reads = createReadsPrefetch(treeReads(tokens));
    let mint: (token: string) => void = () => undefined;
    reads.start(req, new Promise<string>((r) => (mint = r)));
    await turn();
    expect(tokens).toEqual([]);
    mint("ghs_api");
    const answers = reads.take("d1");
    expect(answers).not.toBeNull();
    await expect(answers!("GET tree")).resolves.toEqual(read("ghs_api"));
    expect(tokens).toEqual(["ghs_api"]);
    expect(reads.take("d1")).toBeNull();
  });

  it("each read answers one request: the same read asked again goes to GitHub", async () => {
    const reads = createReadsPrefetch(treeReads());
    reads.start(req, Promise.resolve("ghs_api"));
    const answers = reads.take("d1")!;
    await expect(answers("GET tree")).resolves.not.toBeNull();
    await expect(answers("GET tree")).resolves.toBeNull();
  });

  it("reads nothing without a token, and a failed mint or read answers nothing (the job reads for itself)", async () => {
    const tokens: string[] = [];
    const reads = createReadsPrefetch(treeReads(tokens));
    reads.start(req, null);
    expect(reads.take("d1")).toBeNull();
    reads.start({ ...req, jobId: "d2" }, Promise.reject(new Error("mint failed")));
    await expect(reads.take("d2")!("GET tree")).resolves.toBeNull();
    const failing = createReadsPrefetch(async () => Promise.reject(new Error("GitHub is down")));
    failing.start({ ...req, jobId: "d3" }, Promise.resolve("ghs_api"));
    await expect(failing.take("d3")!("GET tree")).resolves.toBeNull();
    expect(tokens).toEqual([]);
  });

  it("gives nothing to a job that waited long in the queue, or was dropped (not queued)", () => {
    let now = 0;
    const reads = createReadsPrefetch(treeReads(), { now: () => now, maxAgeMs: 1_000 });
    reads.start(req, Promise.resolve("ghs_api"));
    now = 1_001;
    expect(reads.take("d1")).toBeNull();
    reads.start({ ...req, jobId: "d2" }, Promise.resolve("ghs_api"));
    reads.drop("d2");
    expect(reads.take("d2")).toBeNull();
  });

  it("reads for no more jobs than can start at once: past that, a queued job reads for itself", async () => {
    const tokens: string[] = [];
    let now = 0;
    const reads = createReadsPrefetch(treeReads(tokens), { now: () => now, maxWaiting: 2 });
    for (const jobId of ["a", "b", "c"]) reads.start({ ...req, jobId }, Promise.resolve(`ghs_${jobId}`));
    await turn();
    expect(tokens).toEqual(["ghs_a", "ghs_b"]);
    expect(reads.take("c")).toBeNull();
    // A job taken (or dropped, or too old to be handed out) frees its place.
    expect(reads.take("a")).not.toBeNull();
    reads.start({ ...req, jobId: "d" }, Promise.resolve("ghs_d"));
    now = 10_001;
    reads.start({ ...req, jobId: "e" }, Promise.resolve("ghs_e"));
    await turn();
    expect(tokens).toEqual(["ghs_a", "ghs_b", "ghs_d", "ghs_e"]);
  });

  it("nothing is read ahead for undo or a fork's pull request", () => {
    expect(readsAheadFor(req)).toBe(true);
    expect(readsAheadFor(runRequest({ target: issueTarget() }))).toBe(true);
    expect(readsAheadFor({ ...req, verb: "undo" })).toBe(false);
    expect(readsAheadFor(runRequest({ target: prTarget({ isFork: true }) }))).toBe(false);
  });
});

describe("createReadBook: a read the job asks for before triage got to it", () => {
  it("waits until triage starts that read, and is answered by it", async () => {
    const book = createReadBook();
    const asked = book.answer("GET package.json");
    await turn();
    book.add("GET package.json", Promise.resolve(read("pkg")));
    await expect(asked).resolves.toEqual(read("pkg"));
  });

  it("is answered with nothing once triage's reads are over without it", async () => {
    const book = createReadBook();
    const asked = book.answer("GET other");
    book.end();
    await expect(asked).resolves.toBeNull();
    await expect(book.answer("GET other")).resolves.toBeNull();
  });

  it("a read triage made twice answers two requests, in order", async () => {
    const book = createReadBook();
    book.add("GET x", Promise.resolve(read(1)));
    book.add("GET x", Promise.resolve(read(2)));
    book.end();
    await expect(book.answer("GET x")).resolves.toEqual(read(1));
    await expect(book.answer("GET x")).resolves.toEqual(read(2));
    await expect(book.answer("GET x")).resolves.toBeNull();
  });
});

describe("the run handler hands the reads to the job process", () => {
  /** The handler over a pool whose job asks its parent for one read, as a job process's API client does. */
  async function handle(reads?: ReturnType<typeof createReadsPrefetch>) {
    const seen: { input?: unknown; answer?: unknown } = {};
    const pool = poolAsking(readAheadRequest("GET tree"), seen);
    const tokens = createJobTokenPrefetch(async () => ({ apiToken: "ghs_api", gitToken: "ghs_git" }));
    tokens.start({ jobId: "d1", installationId: 7, repo: "web" });
    await handleOneRun(pool, { tokens, ...(reads ? { reads } : {}) });
    return seen as { input: { readsAhead?: boolean }; answer: unknown };
  }

  it("a job whose reads triage made is told so, and its read is answered with triage's answer", async () => {
    const reads = createReadsPrefetch(treeReads());
    reads.start(RUN_JOB.req, Promise.resolve("ghs_api"));
    const seen = await handle(reads);
    expect(seen.input.readsAhead).toBe(true);
    expect(seen.answer).toEqual(read("ghs_api"));
  });

  it("a job with no reads made ahead is not told of any, and reads GitHub itself", async () => {
    const seen = await handle(createReadsPrefetch(treeReads()));
    expect(seen.input.readsAhead).toBeUndefined();
    expect(seen.answer).toBe("no answers");
  });
});

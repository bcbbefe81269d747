import { createJobTokenPrefetch } from "../../src/app/job-token-prefetch.js";
import { createMirrorPrefetch, type MirrorSource } from "../../src/app/mirror-prefetch.js";
import { MIRROR_FETCHED_REQUEST } from "../../src/app/run-job-process.js";
import { handleOneRun, poolAsking } from "../helpers/handle-one-run.js";

const SOURCE: MirrorSource = {
  place: { root: "/cache/git-mirrors", scope: "7" },
  url: "https://github.com/acme/web.git",
  branch: "feature",
};
const TIP = "a".repeat(40);

describe("createMirrorPrefetch: a run's branch fetched into its mirror at triage, taken by its handler", () => {
  const recording = () => {
    const calls: string[] = [];
    const fetch = async (req: { url: string; branch: string; token: string }) => {
      calls.push(`${req.branch} ${req.token}`);
      return TIP;
    };
    return { calls, fetch };
  };

  it("fetches once the job's git token is minted, with it, and hands the tip out once", async () => {
    const { calls, fetch } = recording();
    const mirrors = createMirrorPrefetch(fetch);
    let mint: (token: string) => void = () => undefined;
    mirrors.start("d1", SOURCE, new Promise<string>((r) => (mint = r)));
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([]);
    mint("ghs_git");
    await expect(mirrors.take("d1")).resolves.toBe(TIP);
    expect(calls).toEqual(["feature ghs_git"]);
    expect(mirrors.take("d1")).toBeNull();
  });

  it("fetches nothing for a run not made from a mirror, or without a token, and gives nothing then", async () => {
    const { calls, fetch } = recording();
    const mirrors = createMirrorPrefetch(fetch);
    mirrors.start("fork", null, Promise.resolve("ghs_git"));
    mirrors.start("no-token", SOURCE, null);
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([]);
    expect(mirrors.take("fork")).toBeNull();
    expect(mirrors.take("no-token")).toBeNull();
  });

  it("a failed mint or fetch is null (the job then fetches for itself), never an unhandled rejection", async () => {
    const failing = createMirrorPrefetch(async () => Promise.reject(new Error("fetch failed")));
    failing.start("d1", SOURCE, Promise.resolve("ghs_git"));
    await expect(failing.take("d1")).resolves.toBeNull();
    const { calls, fetch } = recording();
    const noToken = createMirrorPrefetch(fetch);
    noToken.start("d2", SOURCE, Promise.reject(new Error("mint failed")));
    await expect(noToken.take("d2")).resolves.toBeNull();
    expect(calls).toEqual([]);
  });

  it("gives nothing to a job that waited long in the queue, or was dropped (not queued)", () => {
    let now = 0;
    const mirrors = createMirrorPrefetch(recording().fetch, { now: () => now, maxAgeMs: 1_000 });
    mirrors.start("d1", SOURCE, Promise.resolve("ghs_git"));
    now = 1_001;
    expect(mirrors.take("d1")).toBeNull();
    mirrors.start("d2", SOURCE, Promise.resolve("ghs_git"));
    mirrors.drop("d2");
    expect(mirrors.take("d2")).toBeNull();
  });
});

describe("the run handler hands the fetch to the job process", () => {
  /** The handler over a pool whose job asks its parent for the mirror fetch, as a job process's checkout does. */
  async function handle(mirrors?: ReturnType<typeof createMirrorPrefetch>) {
    const seen: { input?: unknown; answer?: unknown } = {};
    const pool = poolAsking(MIRROR_FETCHED_REQUEST, seen);
    const tokens = createJobTokenPrefetch(async () => ({ apiToken: "ghs_api", gitToken: "ghs_git" }));
    tokens.start({ jobId: "d1", installationId: 7, repo: "web" });
    await handleOneRun(pool, { tokens, ...(mirrors ? { mirrors } : {}) });
    return seen as { input: { mirrorFetched?: boolean }; answer: unknown };
  }

  it("a job whose branch triage fetched is told so, and its request is answered with the tip", async () => {
    const mirrors = createMirrorPrefetch(async () => TIP);
    mirrors.start("d1", SOURCE, Promise.resolve("ghs_git"));
    const seen = await handle(mirrors);
    expect(seen.input.mirrorFetched).toBe(true);
    expect(seen.answer).toBe(TIP);
  });

  it("a job with no fetch started is not told of one, and its parent answers no such request", async () => {
    const seen = await handle(createMirrorPrefetch(async () => TIP));
    expect(seen.input.mirrorFetched).toBeUndefined();
    expect(seen.answer).toBe("no answers");
  });
});

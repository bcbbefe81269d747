import { mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createTranscriptStore, readTranscript } from "../../src/app/transcript-store.js";

describe("transcript store", () => {
  let dir: string;
  beforeEach(async () => {
    dir = path.join(await mkdtemp(path.join(os.tmpdir(), "transcripts-")), "t");
  });
  afterEach(async () => {
    await rm(path.dirname(dir), { recursive: true, force: true });
  });

  it("saves and reads a run's transcript; an unknown run has none", async () => {
    await createTranscriptStore(dir).save("d-1", "# story");
    expect(await readTranscript(dir, "d-1")).toBe("# story");
    expect(await readTranscript(dir, "d-2")).toBeNull();
  });

  it("never writes outside its folder, whatever the run id", async () => {
    await createTranscriptStore(dir).save("../../etc/x", "t");
    expect(await readdir(dir)).toEqual(["__.._etc_x.md"]);
    expect(await readTranscript(dir, "../../etc/x")).toBe("t");
  });

  it("keeps at most maxFiles, the newest, and none older than maxAgeMs", async () => {
    const now = Date.now();
    const store = createTranscriptStore(dir, { maxFiles: 2, maxAgeMs: 60_000 }, () => now);
    await store.save("old", "o");
    await utimes(path.join(dir, "old.md"), new Date(now - 120_000), new Date(now - 120_000));
    await store.save("a", "a");
    expect((await readdir(dir)).sort()).toEqual(["a.md"]);
    await store.save("b", "b");
    await utimes(path.join(dir, "a.md"), new Date(now - 2_000), new Date(now - 2_000));
    await utimes(path.join(dir, "b.md"), new Date(now - 1_000), new Date(now - 1_000));
    await store.save("c", "c");
    expect((await readdir(dir)).sort()).toEqual(["b.md", "c.md"]);
  });
});

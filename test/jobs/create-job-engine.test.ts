import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJobEngine } from "../../src/jobs/create-job-engine.js";

describe("createJobEngine", () => {
  it("without a Redis URL uses the embedded store, and unset options keep their defaults", async () => {
    const dir = mkdtempSync(join(tmpdir(), "create-job-engine-"));
    try {
      const job = { id: "d1", key: "o/r#1", installationId: 1, kind: "run" as const, data: null };
      const first = await createJobEngine<null>({
        dataDir: dir,
        redisUrl: undefined,
        retentionMs: undefined,
        leaseMs: undefined,
      });
      expect(await first.enqueue(job)).toBe(true);
      await first.shutdown(0);
      const second = await createJobEngine<null>({ dataDir: dir, retentionMs: undefined });
      expect(await second.enqueue(job)).toBe(false);
      expect(await second.stats()).toEqual({ queued: 1, running: 0, workers: 0 });
      await second.shutdown(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { claimStoreDir, OWNER_FILE, StoreInUseError } from "../../src/jobs/claim-store-dir.js";
import { createJobEngine } from "../../src/jobs/create-job-engine.js";

describe("claimStoreDir", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "claim-store-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const ownedBy = (pid: number, host = hostname()) =>
    writeFileSync(join(dir, OWNER_FILE), JSON.stringify({ pid, host, since: 1 }));

  it("writes this process as the owner and removes the claim on release", () => {
    const claim = claimStoreDir(dir);
    expect(JSON.parse(readFileSync(join(dir, OWNER_FILE), "utf8"))).toMatchObject({
      pid: process.pid,
      host: hostname(),
    });
    claim.release();
    expect(existsSync(join(dir, OWNER_FILE))).toBe(false);
  });

  it("lets one process open the same store twice, and keeps the claim until the last release", () => {
    const a = claimStoreDir(dir);
    const b = claimStoreDir(dir);
    a.release();
    expect(existsSync(join(dir, OWNER_FILE))).toBe(true);
    b.release();
    expect(existsSync(join(dir, OWNER_FILE))).toBe(false);
  });

  it("refuses a store a live process on this host owns, naming AIDER_BOT_DATA_DIR and Redis", () => {
    // The process that runs jest is alive and is not this worker.
    ownedBy(process.ppid);
    expect(() => claimStoreDir(dir)).toThrow(StoreInUseError);
    expect(() => claimStoreDir(dir)).toThrow(
      /in use by another running aider-bot process \(pid \d+\).*AIDER_BOT_DATA_DIR.*REDIS_URL/,
    );
    // The refused claim left the owner's file alone.
    expect(JSON.parse(readFileSync(join(dir, OWNER_FILE), "utf8")).pid).toBe(process.ppid);
  });

  it("takes over a claim whose process is gone, one from another host, and an unreadable one", () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    for (const write of [
      () => ownedBy(gone),
      () => ownedBy(process.ppid, "another-host"),
      () => writeFileSync(join(dir, OWNER_FILE), "{not json"),
    ]) {
      write();
      const claim = claimStoreDir(dir);
      expect(JSON.parse(readFileSync(join(dir, OWNER_FILE), "utf8")).pid).toBe(process.pid);
      claim.release();
    }
  });

  it("an embedded engine refuses a folder another live process owns, and frees its own on shutdown", async () => {
    ownedBy(process.ppid);
    await expect(createJobEngine<null>({ dataDir: dir })).rejects.toThrow(StoreInUseError);
    rmSync(join(dir, OWNER_FILE));
    const engine = await createJobEngine<null>({ dataDir: dir });
    expect(existsSync(join(dir, OWNER_FILE))).toBe(true);
    await engine.shutdown(0);
    expect(existsSync(join(dir, OWNER_FILE))).toBe(false);
  });
});

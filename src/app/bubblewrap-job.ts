import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AppEnv } from "../config/env.js";
import { cacheVolumeName } from "../exec/container-engine.js";
import { createSandboxedExec, type SandboxOptions } from "../exec/sandbox.js";
import type { Exec, ExecRequest } from "../exec/types.js";
import { JOB_DIR_PREFIX } from "./execute-run.js";

// A job's bubblewrap side: its folders on the host (home and temp, kept across its commands), the repository's
// package cache and tools shelf folders, and the sandboxed exec made once those exist.

/**
 * A repository's folder of bubblewrap's: its package cache (`<cache dir>/packages/aider-bot-cache-<owner>-<repo>-<hash>`)
 * or its tools shelf (`<cache dir>/tools/…`), named from the same key as the container's volume (a fork's pull
 * request has its own), made on first use. The cache dir is hidden in the sandbox: only the package cache is mounted
 * back; the shelf never is (its tools are copied into the job's home, see src/checks/tool-shelf.ts).
 */
export async function repositoryFolder(
  env: Pick<AppEnv, "cacheDir">,
  kind: "packages" | "tools",
  cacheKey: string,
): Promise<string> {
  const root = path.join(env.cacheDir ?? path.join(os.tmpdir(), "aider-bot-cache"), kind);
  const dir = path.join(root, cacheVolumeName(cacheKey, createHash("sha256").update(cacheKey).digest("hex")));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** The bubblewrap exec, made on the first command (or by `prepare`), once the job's folders exist. */
export function lazyBubblewrap(
  exec: Exec,
  jobDirs: ReturnType<typeof createJobDirs>,
  options: Omit<SandboxOptions, "jobDirs">,
): Exec & { prepare(): Promise<void>; prestart(shape: ExecRequest): void; close(): Promise<void> } {
  let sandboxed: Promise<ReturnType<typeof createSandboxedExec>> | null = null;
  const made = () =>
    (sandboxed ??= jobDirs
      .make()
      .then((dirs) => createSandboxedExec(exec, { ...options, ...(dirs ? { jobDirs: dirs } : {}) })));
  return {
    run: async (req: ExecRequest) => (await made()).run(req),
    // A failure stays in the promise: the first command meets it as it would have without this.
    prepare: async () => void (await made()),
    prestart: (shape) =>
      void made().then(
        (s) => s.prestart(shape),
        () => undefined,
      ),
    close: async () => {
      const s = await sandboxed?.catch(() => null);
      await s?.close();
    },
  };
}

/**
 * The job's home and temp folders for bubblewrap, under the jobs' root (hidden from every sandbox; named like a job's
 * folder, so the start-up sweep removes what a crashed job left). Made once, on the first command; null when the
 * home's usual path does not exist (nothing to mount it on): each command then gets an empty one, as before.
 */
export function createJobDirs(root: string): {
  make(): Promise<{ home: string; tmp: string; homeAt: string } | null>;
  remove(): Promise<void>;
} {
  let made: Promise<{ dir: string; home: string; tmp: string; homeAt: string } | null> | null = null;
  return {
    make: async () => {
      made ??= (async () => {
        const homeAt = os.homedir();
        if (!existsSync(homeAt)) return null;
        await mkdir(root, { recursive: true, mode: 0o700 });
        const dir = await mkdtemp(path.join(root, `${JOB_DIR_PREFIX}${process.pid}-env-`));
        const home = path.join(dir, "home");
        const tmp = path.join(dir, "tmp");
        await mkdir(home, { mode: 0o700 });
        await mkdir(tmp, { mode: 0o700 });
        return { dir, home, tmp, homeAt: realpathSync(homeAt) };
      })();
      const dirs = await made;
      return dirs && { home: dirs.home, tmp: dirs.tmp, homeAt: dirs.homeAt };
    },
    remove: async () => {
      const dirs = await made?.catch(() => null);
      if (dirs) await rm(dirs.dir, { recursive: true, force: true });
    },
  };
}

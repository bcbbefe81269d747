import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { TranscriptStore } from "../run/report/publish-transcript.js";

/** How many transcripts are kept, and for how long: the oldest go first when either is exceeded. */
export const TRANSCRIPT_RETENTION: TranscriptRetention = { maxFiles: 500, maxAgeMs: 14 * 24 * 3_600_000 };

export interface TranscriptRetention {
  maxFiles: number;
  maxAgeMs: number;
}

/** Where transcripts live under the app's cache dir. */
export function transcriptDir(cacheRoot: string): string {
  return path.join(cacheRoot, "transcripts");
}

/** A run id as a file name: GitHub delivery ids are UUIDs; anything else is made safe, never a path. */
function fileOf(dir: string, runId: string): string {
  return path.join(
    dir,
    `${runId
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .replace(/^\.+/, "_")
      .slice(0, 200)}.md`,
  );
}

/**
 * Transcripts as files: one `<run-id>.md` each, written whole (temp file, then rename) and readable only
 * by the app's user; each save prunes what is past {@link TRANSCRIPT_RETENTION}.
 */
export function createTranscriptStore(
  dir: string,
  retention: TranscriptRetention = TRANSCRIPT_RETENTION,
  now: () => number = Date.now,
): TranscriptStore {
  return {
    async save(runId, text) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = fileOf(dir, runId);
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, text, { mode: 0o600 });
      await rename(tmp, file);
      await prune(dir, retention, now());
    },
  };
}

/** The stored transcript of a run, or null when there is none (never run here, or pruned). */
export async function readTranscript(dir: string, runId: string): Promise<string | null> {
  try {
    return await readFile(fileOf(dir, runId), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

async function prune(dir: string, retention: TranscriptRetention, now: number): Promise<void> {
  const names = (await readdir(dir)).filter((n) => n.endsWith(".md"));
  const files = await Promise.all(
    names.map(async (n) => ({
      file: path.join(dir, n),
      mtime: (await stat(path.join(dir, n)).catch(() => null))?.mtimeMs ?? 0,
    })),
  );
  files.sort((a, b) => b.mtime - a.mtime);
  const old = files.filter((f, i) => i >= retention.maxFiles || now - f.mtime > retention.maxAgeMs);
  await Promise.all(old.map((f) => rm(f.file, { force: true })));
}

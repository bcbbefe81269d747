import path from "node:path";
import { stat } from "node:fs/promises";
import { sourceEnv } from "../config/env.js";
import { createExec } from "../exec/create-exec.js";
import { buildRepoMap } from "../repomap/build-repo-map.js";
import { listRepoFiles } from "../workspace/list-repo-files.js";
import { findMentions } from "../repomap/mentioned-idents.js";
import { defaultCacheDir } from "./default-cache-dir.js";
import { UsageError } from "./exit-code.js";

export interface MapCommandOptions {
  repo: string;
  mapTokens: number;
  file: string[];
  mention: string[];
  /** Worker threads for parsing (default: cores − 1, at most 7). */
  threads?: number;
}

/** `aider-bot map`: print the repo map of a checkout to stdout; stats to stderr. */
export async function mapCommand(
  opts: MapCommandOptions,
  env: Readonly<Record<string, string | undefined>> = sourceEnv(),
): Promise<number> {
  const root = path.resolve(opts.repo);
  // A root that cannot be stat'ed (missing, no permission) is the same usage error as one that is a file.
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) throw new UsageError(`--repo ${opts.repo} is not a directory`);
  const files = await listRepoFiles(root, { exec: createExec({ sourceEnv: env }) });
  const mentions = findMentions(opts.mention.join(" "), files, opts.file);
  const map = await buildRepoMap({
    root,
    files,
    chatFiles: opts.file,
    mentionedFiles: mentions.mentionedFiles,
    mentionedIdents: [...new Set([...mentions.mentionedIdents, ...opts.mention])],
    mapTokens: opts.mapTokens,
    // The words rank files as a request's would (docs/behaviour.md#ranking).
    ...(opts.mention.length ? { request: { text: opts.mention.join(" ") } } : {}),
    cacheDir: defaultCacheDir(root, env),
    ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
  });
  process.stdout.write(map.text.endsWith("\n") || map.text === "" ? map.text : `${map.text}\n`);
  const s = map.stats;
  process.stderr.write(
    `repo map: ${s.files} files, ${s.parsed} parsed, ${s.cacheHits} from cache, ${s.tokens} tokens, ${Math.round(s.ms)} ms` +
      `${s.threads > 0 ? ` (${s.threads} worker thread${s.threads > 1 ? "s" : ""})` : ""}\n`,
  );
  return 0;
}

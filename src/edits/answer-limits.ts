import { DEFAULT_ANSWER_LIMITS, type ApplyOptions, type EditFailure, type FileChanges } from "./types.js";
import { formatNumber } from "../format-number.js";

const size = (bytes: number) =>
  bytes < 1_000_000 ? `${formatNumber(bytes)} bytes` : `${formatNumber(bytes / 1_000_000, 1)} MB`;

/**
 * The failure when an answer's changes go over the per-answer caps (`maxNewFiles` new files, `maxWriteBytes` bytes
 * written over all changed files; defaults 1,000 and 50 MB), or null when they fit. Every later step — writing,
 * diffing, committing, pushing — loops over these files, so the cap bounds them all.
 * `answerLimitFailure(new Map([["a", "x"]]), new Set(), { chatFiles: [], maxNewFiles: 0 })?.reason === "over-limit"`
 */
export function answerLimitFailure(
  changes: FileChanges,
  existing: ReadonlySet<string> | ReadonlyMap<string, unknown>,
  options: ApplyOptions,
): EditFailure | null {
  const maxNewFiles = options.maxNewFiles ?? DEFAULT_ANSWER_LIMITS.maxNewFiles;
  const maxWriteBytes = options.maxWriteBytes ?? DEFAULT_ANSWER_LIMITS.maxWriteBytes;
  let created = 0;
  let bytes = 0;
  for (const [path, content] of changes) {
    if (content === null) continue;
    if (!existing.has(path)) created++;
    bytes += Buffer.byteLength(content, "utf8");
  }
  const fix = "Nothing was changed. Make the change in smaller steps: fewer or smaller files per answer.";
  if (created > maxNewFiles) {
    return {
      path: "",
      reason: "over-limit",
      message: `Your answer creates ${formatNumber(created)} new files; one answer may create at most ${formatNumber(maxNewFiles)}. ${fix}`,
    };
  }
  if (bytes > maxWriteBytes) {
    return {
      path: "",
      reason: "over-limit",
      message: `Your answer writes ${size(bytes)} to files; one answer may write at most ${size(maxWriteBytes)}. ${fix}`,
    };
  }
  return null;
}

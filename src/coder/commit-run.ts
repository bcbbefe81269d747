import type { CheckReport } from "../checks/types.js";
import type { CommitRequest } from "../workspace/types.js";
import type { CoderDeps } from "./coder-deps.js";
import { commitSubjectFromRequest, normaliseSubject, requestedChangeBody, runCommitTrailers } from "./commit-policy.js";
import type { CoderOptions, FileStat } from "./types.js";

export type CommitRunResult =
  | { kind: "committed"; editedFiles: FileStat[]; commit: { sha: string; subject: string } | null }
  | { kind: "nothing-changed" }
  | { kind: "commit-failed"; report: CheckReport; editedFiles: FileStat[] };

/** The commit request for a finished run: one commit, only this run's files, request in the body (docs/behaviour.md#commits). */
function buildCommitRequest(options: CoderOptions, paths: readonly string[], subject: string): CommitRequest {
  return {
    paths,
    subject,
    body: requestedChangeBody(options.message),
    trailers: runCommitTrailers(options.coAuthor, options.trailers),
  };
}

async function chooseSubject(deps: CoderDeps, options: CoderOptions, diff: string, context: string): Promise<string> {
  if (deps.generateCommitMessage) {
    try {
      const generated = await deps.generateCommitMessage(diff, context);
      const subject = generated ? normaliseSubject(generated) : null;
      if (subject) return subject;
    } catch {
      // A failed weak-model call must not lose the run's work: fall back to the deterministic subject.
    }
  }
  return commitSubjectFromRequest(options.message);
}

/**
 * Commit the files this run edited, once, after a clean final state. With `commit: false` only the stats are
 * returned. A refused commit (e.g. a pre-commit hook, which is never bypassed: docs/behaviour.md#commits) is reported as a failed check.
 */
export async function commitRun(deps: CoderDeps, options: CoderOptions, paths: readonly string[], explanation: string): Promise<CommitRunResult> {
  if (options.commit && deps.prepareCommit) return commitPrepared(deps, options, paths, explanation);
  const stats = await deps.diffStats(paths);
  if (stats.length === 0) return { kind: "nothing-changed" };
  if (!options.commit) return { kind: "committed", editedFiles: stats, commit: null };

  const diff = await deps.diffText(paths);
  const subject = await chooseSubject(deps, options, diff, `${options.message}\n\n${explanation}`.trim());
  try {
    const result = await deps.commit(buildCommitRequest(options, paths, subject));
    return { kind: "committed", editedFiles: result.stats, commit: { sha: result.sha, subject: result.subject } };
  } catch (err) {
    const output = err instanceof Error ? err.message : String(err);
    const report: CheckReport = { kind: "lint", ok: false, command: "git commit", output, locations: [] };
    return { kind: "commit-failed", report, editedFiles: stats };
  }
}

/** `commitRun` through `prepareCommit`: same outcomes, the stats of a refused commit asked for only then. */
async function commitPrepared(deps: CoderDeps, options: CoderOptions, paths: readonly string[], explanation: string): Promise<CommitRunResult> {
  const prepared = await deps.prepareCommit!(paths);
  if (prepared.diff === "") return { kind: "nothing-changed" };
  const subject = await chooseSubject(deps, options, prepared.diff, `${options.message}\n\n${explanation}`.trim());
  const { paths: _paths, ...req } = buildCommitRequest(options, paths, subject);
  try {
    const result = await prepared.commit(req);
    return { kind: "committed", editedFiles: result.stats, commit: { sha: result.sha, subject: result.subject } };
  } catch (err) {
    const output = err instanceof Error ? err.message : String(err);
    const report: CheckReport = { kind: "lint", ok: false, command: "git commit", output, locations: [] };
    // The refusal is what the run reports: a failure to count the lines as well must not replace it.
    const editedFiles = await deps.diffStats(paths).catch(() => paths.map((path) => ({ path, added: 0, removed: 0 })));
    return { kind: "commit-failed", report, editedFiles };
  }
}

import type { CheckReport } from "../checks/types.js";
import type { CommitRequest } from "../workspace/types.js";
import type { CommitChanges } from "../workspace/read-commit-changes.js";
import type { CoderDeps } from "./coder-deps.js";
import { commitSubjectFromRequest, normaliseSubject, requestedChangeBody, runCommitTrailers } from "./commit-policy.js";
import type { CoderOptions, CoderResult, FileStat } from "./types.js";
import { numstatOfDiff } from "../workspace/parse-numstat.js";

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

/** The commit's context for the weak model: the request and the model's explanation. */
export function commitContext(options: CoderOptions, explanation: string): string {
  return `${options.message}\n\n${explanation}`.trim();
}

/**
 * What a subject asked for while the checks ran (see early-subject) brings to a commit of the files as it saw them:
 * the model's answer (null when that call failed), and the diff it was written from, with the contents that diff
 * starts from, which the commit may take as its own (see `OfferedDiff` in the workspace).
 */
export interface EarlyCommit {
  subject: Promise<string | null>;
  diff: string;
  from: ReadonlyMap<string, string | null>;
}

async function chooseSubject(
  deps: CoderDeps,
  options: CoderOptions,
  diff: string,
  context: string,
  early: EarlyCommit | null,
): Promise<string> {
  // A subject the model wrote while the checks ran, for the files as they are now, is the one it would write now.
  if (early) {
    const asked = await early.subject;
    return (asked ? normaliseSubject(asked) : null) ?? commitSubjectFromRequest(options.message);
  }
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
export async function commitRun(
  deps: CoderDeps,
  options: CoderOptions,
  paths: readonly string[],
  explanation: string,
  early: EarlyCommit | null = null,
  resultOf?: ResultOfCommit,
): Promise<CommitRunResult> {
  if (options.commit && deps.prepareCommit) return commitPrepared(deps, options, paths, explanation, early, resultOf);
  const stats = await deps.diffStats(paths);
  if (stats.length === 0) return { kind: "nothing-changed" };
  if (!options.commit) return { kind: "committed", editedFiles: stats, commit: null };

  const diff = await deps.diffText(paths);
  const subject = await chooseSubject(deps, options, diff, commitContext(options, explanation), early);
  try {
    const result = await deps.commit(buildCommitRequest(options, paths, subject));
    return { kind: "committed", editedFiles: result.stats, commit: { sha: result.sha, subject: result.subject } };
  } catch (err) {
    const output = err instanceof Error ? err.message : String(err);
    const report: CheckReport = { kind: "lint", ok: false, command: "git commit", output, locations: [] };
    return { kind: "commit-failed", report, editedFiles: stats };
  }
}

/** The run's result were this commit made (for `publishAhead`, which publishes only what the run would). */
export type ResultOfCommit = (commit: { sha: string; subject: string }, editedFiles: FileStat[]) => CoderResult;

/**
 * `commitRun` through `prepareCommit`: same outcomes, the stats of a refused commit asked for only then. Where the
 * driver publishes ahead (`publishAhead`: the App through GitHub's API), the commit as git would make it is read from
 * the work tree and offered; once the driver has sent it, no local commit is made (the commit's stats are the diff's):
 * the driver makes one with `commitLocally` only if it must push with git after all. Where the diff's stats cannot be
 * read (a name git quotes), nothing is read ahead.
 */
async function commitPrepared(
  deps: CoderDeps,
  options: CoderOptions,
  paths: readonly string[],
  explanation: string,
  early: EarlyCommit | null,
  resultOf?: ResultOfCommit,
): Promise<CommitRunResult> {
  const prepared = await deps.prepareCommit!(paths, early ? { diff: early.diff, from: early.from } : undefined);
  if (prepared.diff === "") return { kind: "nothing-changed" };
  const subject = await chooseSubject(deps, options, prepared.diff, commitContext(options, explanation), early);
  const { paths: _paths, ...req } = buildCommitRequest(options, paths, subject);
  const ahead = deps.publishAhead;
  const stats = ahead && prepared.ahead && resultOf ? numstatOfDiff(prepared.diff) : null;
  const changes = stats ? await prepared.ahead!(req, ahead!.maxBytes).catch(() => null) : null;
  if (changes && stats) {
    const commitLocally = () => commitAsSent(deps, paths, req, changes);
    if (ahead!.offer(changes, resultOf!({ sha: "", subject }, stats), commitLocally))
      return { kind: "committed", editedFiles: stats, commit: { sha: "", subject } };
  }
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

/**
 * The local commit of a commit sent ahead, made only when the driver must push with git after all: the files as they
 * were sent are written again (the driver may have removed the checkout's files, and restored HEAD's since), then
 * committed as the commit step would have. Its sha, or null when git could not make it.
 */
async function commitAsSent(
  deps: CoderDeps,
  paths: readonly string[],
  req: Omit<CommitRequest, "paths">,
  sent: CommitChanges,
): Promise<string | null> {
  try {
    const files = new Map<string, string | null>();
    for (const e of sent.entries)
      files.set(e.path, e.status === "D" ? null : sent.contents.get(e.path)!.toString("utf8"));
    await deps.workspace.write(files);
    return (await (await deps.prepareCommit!(paths)).commit(req)).sha;
  } catch {
    return null;
  }
}

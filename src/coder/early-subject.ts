import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import type { CoderDeps } from "./coder-deps.js";

/** Contents by path; null for a file that does not exist. */
export type FileContents = ReadonlyMap<string, string | null>;

/**
 * A commit subject asked of the model while the round's lint and test commands run, so that a run whose checks
 * pass does not then wait for another model call before it can commit (with a real model, about a second between
 * the last check and the push). It is written from a diff made here, from the edited files' contents before the
 * run and after the round, and used only when the files are still exactly those contents at commit time: a command
 * that rewrote an edited file (an autofixing linter), or a later round, makes the commit ask again
 * (docs/behaviour.md#commits). No git process: the tests it runs beside keep the machine to themselves.
 */
export interface EarlySubject {
  /** The model's subject (null when the call failed or answered nothing usable, as one asked at commit time would be). */
  readonly subject: Promise<string | null>;
  /** The diff it was asked for, and the contents that diff starts from. */
  readonly diff: string;
  readonly before: FileContents;
  /** Whether `current` (the edited files now) is what the subject was written for. */
  matches(current: FileContents): boolean;
  /** Stop the model call (the checks failed, or the run goes on to another round). */
  abort(): void;
}

/**
 * Bounds on the in-process diff, which runs on the event loop while the checks run: beyond this many characters of
 * contents it is not attempted, and jsdiff gives up on a file whose edit script is longer than MAX_EDIT_LENGTH lines
 * or that takes longer than DIFF_TIMEOUT_MS (a rewrite of a 6,000-line file took 1.6 s with a limit of 5,000 lines,
 * 50 ms with 1,000). The commit then asks, as before. A small edit of a 20,000-line file diffs in ~20 ms.
 */
const MAX_DIFFED_CHARS = 1_000_000;
const MAX_EDIT_LENGTH = 1_000;
const DIFF_TIMEOUT_MS = 50;

/**
 * Start the model's subject for the change from `before` (each edited file as the run found it) to `after` (as
 * the round left it), or null when there is no model, nothing changed or the diff is too large to make here.
 * Never rejects.
 */
export function startEarlySubject(
  deps: Pick<CoderDeps, "generateCommitMessage" | "signal">,
  before: FileContents,
  after: FileContents,
  context: string,
): EarlySubject | null {
  const generate = deps.generateCommitMessage;
  if (!generate) return null;
  const diff = contentDiff(before, after);
  if (!diff) return null;
  const controller = new AbortController();
  const signal = deps.signal ? AbortSignal.any([controller.signal, deps.signal]) : controller.signal;
  // generateCommitMessage answers null for any failure; a throw from an injected one is treated the same.
  const subject = generate(diff, context, signal).catch(() => null);
  return {
    subject,
    diff,
    before,
    matches: (current) => sameContents(after, current),
    abort: () => controller.abort(),
  };
}

/**
 * The change as the weak model is shown it, in the shape of the commit path's git diff: "Added <file>" for each new
 * file, then a unified diff per file. Null when nothing changed or a file is too large or too rewritten to diff here.
 */
export function contentDiff(before: FileContents, after: FileContents): string | null {
  let size = 0;
  for (const [path, now] of after) size += (now?.length ?? 0) + (before.get(path)?.length ?? 0);
  if (size > MAX_DIFFED_CHARS) return null;
  const added: string[] = [];
  const parts: string[] = [];
  for (const path of [...after.keys()].sort()) {
    const was = before.get(path) ?? null;
    const now = after.get(path) ?? null;
    if (was === now) continue;
    if (was === null) added.push(`Added ${path}\n`);
    const patch = createTwoFilesPatch(
      was === null ? "/dev/null" : `a/${path}`,
      now === null ? "/dev/null" : `b/${path}`,
      was ?? "",
      now ?? "",
      undefined,
      undefined,
      {
        context: 3,
        headerOptions: FILE_HEADERS_ONLY,
        maxEditLength: MAX_EDIT_LENGTH,
        timeout: DIFF_TIMEOUT_MS,
      },
    );
    if (patch === undefined) return null;
    parts.push(`diff --git a/${path} b/${path}\n${patch}`);
  }
  return parts.length ? [...added, ...parts].join("") : null;
}

/** Every file of `expected` has exactly that content in `current` (null: absent in both). */
export function sameContents(expected: FileContents, current: FileContents): boolean {
  for (const [path, content] of expected) if ((current.get(path) ?? null) !== content) return false;
  return true;
}

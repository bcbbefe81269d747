/**
 * CI often ends with "nothing changed": `make generate && git diff --exit-code`, `./unittest.sh && git diff --quiet`.
 * On CI the checkout is the commit; here the checks run on the run's edits before they are committed, so such a
 * check always failed, reporting the model's own edit as the difference. For a command that runs `git diff` or
 * `git status`, the edits are first staged into a private copy of the index (its objects written to a folder of
 * their own beside the repository's, which stay read-only in the sandbox), and the command sees that index: its
 * `git diff` shows only what the checks themselves changed. The checkout's real index is never touched, and when
 * staging fails for any reason the command runs as before.
 */

/** A command that asks git whether the working tree changed. */
const ASKS_GIT_FOR_CHANGES = /\bgit\b[^\n;&|]*\s(?:diff|status)\b/;

export function needsStagedEdits(command: string): boolean {
  return ASKS_GIT_FOR_CHANGES.test(command);
}

/**
 * POSIX shell run before the command: makes a temporary folder, copies the index there, stages every change into the
 * copy (`git add -A`, new objects into the folder) and only when all of it worked exports the variables that point
 * git at the copy. Paths are resolved with `cd … && pwd` so a check running in a subfolder finds them too.
 */
const STAGE_EDITS = [
  `if _ab_stage="$(mktemp -d 2>/dev/null)" &&`,
  `_ab_objects="$(cd "$(git rev-parse --git-path objects 2>/dev/null)" 2>/dev/null && pwd)" &&`,
  `cp "$(git rev-parse --git-path index)" "$_ab_stage/index" 2>/dev/null && mkdir "$_ab_stage/objects" &&`,
  `GIT_INDEX_FILE="$_ab_stage/index" GIT_OBJECT_DIRECTORY="$_ab_stage/objects" GIT_ALTERNATE_OBJECT_DIRECTORIES="$_ab_objects" git add -A >/dev/null 2>&1;`,
  `then export GIT_INDEX_FILE="$_ab_stage/index" GIT_OBJECT_DIRECTORY="$_ab_stage/objects" GIT_ALTERNATE_OBJECT_DIRECTORIES="$_ab_objects"; fi`,
].join(" ");

/** The shell text to run for `command`: unchanged, or with the edits staged in a private index first. */
export function withStagedEdits(command: string): string {
  return needsStagedEdits(command) ? `${STAGE_EDITS}\n${command}` : command;
}

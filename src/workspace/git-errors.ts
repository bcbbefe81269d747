/** A git command failed; the message carries git's own output (secrets redacted). */
export class GitError extends Error {
  override name = "GitError";
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(message);
  }
}

/** The remote branch moved while we worked and a rebase could not bring our commit on top. Never force-pushed. */
export class PushRejectedError extends GitError {
  override name = "PushRejectedError";
}

/** A repository hook (pre-commit, commit-msg, …) refused the commit; the message includes the hook's output. */
export class HookRejectedError extends GitError {
  override name = "HookRejectedError";
}

/** Nothing among the given paths differs from HEAD, so there is no commit to make. */
export class NothingToCommitError extends GitError {
  override name = "NothingToCommitError";
}

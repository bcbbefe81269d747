/** What finding a pull request's base needs of git: a fetch of one branch to a depth, and a plain git command. */
export interface BaseCommitGit {
  fetch(req: {
    dir: string;
    branch: string;
    depth?: number;
    deepen?: number;
    token?: string;
    into?: string;
    signal?: AbortSignal;
  }): Promise<string>;
  run(
    dir: string,
    args: string[],
    options?: { allowFail?: boolean; signal?: AbortSignal },
  ): Promise<{ ok: boolean; stdout: string }>;
}

/** How deep each try fetches both branches: most pull requests branch off within the first. */
const DEPTHS = [50, 500, 5000] as const;

/**
 * The commit a pull request's change starts from: the merge-base of its head and the default branch, not the default
 * branch's tip (which may have moved on since the branch was made, and fail differently). The run's checkout is a
 * shallow clone of the head, so both branches are fetched deeper (50 commits, then 500, then 5000) until their
 * histories meet; no further, so a branch that never shares history costs three fetches, and the run then compares
 * nothing (the caller treats the error as "no base").
 *
 * @param head the commit the run's checkout is at (before any edit of the run)
 */
export async function pullRequestBase(
  git: BaseCommitGit,
  req: { dir: string; head: string; headBranch: string; defaultBranch: string; token?: string },
  depths: readonly number[] = DEPTHS,
  signal?: AbortSignal,
): Promise<string> {
  // A stopped base run (its job is ending) fetches no further, and the fetch under way is killed.
  const token = { ...(req.token ? { token: req.token } : {}), ...(signal ? { signal } : {}) };
  for (const depth of depths) {
    if (signal?.aborted) throw new Error("the base's run was stopped before its commit was found");
    // Into refs of their own: the head's tracking ref is where a push that finds the branch moved starts from.
    const tip = await git.fetch({
      dir: req.dir,
      branch: req.defaultBranch,
      depth,
      into: "refs/aider-bot/base/default",
      ...token,
    });
    // The head is deepened below the checkout's boundary: its tip is already here, so `depth` would fetch nothing.
    await git.fetch({
      dir: req.dir,
      branch: req.headBranch,
      deepen: depth,
      into: "refs/aider-bot/base/head",
      ...token,
    });
    const found = await git.run(req.dir, ["merge-base", req.head, tip], {
      allowFail: true,
      ...(signal ? { signal } : {}),
    });
    const sha = found.stdout.trim();
    if (found.ok && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(sha)) return sha;
  }
  throw new Error(
    `the pull request's branch and ${req.defaultBranch} share no commit within ${depths.at(-1) ?? 0} commits of either`,
  );
}

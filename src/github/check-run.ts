import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub, isGitHubFailure } from "./github-error.js";

/** GitHub rejects check-run output fields over 65,535 characters. */
const OUTPUT_LIMIT = 65_535;

export type CheckConclusion = "success" | "failure" | "neutral" | "cancelled";

/**
 * Create an in-progress Check Run named `name` on a commit. Returns its id, or null when the App was installed
 * without the `checks: write` permission (403): the status comment still tells the story, so this is not fatal.
 * A rate limit is not a missing permission: it is thrown like any other failure.
 */
export async function startCheckRun(
  api: GitHubClient,
  args: RepoRef & { headSha: string; name?: string; detailsUrl?: string; startedAt?: Date },
): Promise<number | null> {
  try {
    const { data } = await callGitHub(
      `Starting a Check Run on ${args.owner}/${args.repo}@${args.headSha.slice(0, 12)}`,
      () =>
        api.rest.checks.create({
          owner: args.owner,
          repo: args.repo,
          name: args.name ?? "aider-bot",
          head_sha: args.headSha,
          status: "in_progress",
          started_at: (args.startedAt ?? new Date()).toISOString(),
          ...(args.detailsUrl ? { details_url: args.detailsUrl } : {}),
        }),
    );
    return data.id;
  } catch (error) {
    if (isGitHubFailure(error, "forbidden")) return null;
    throw error;
  }
}

/** Complete a Check Run with the same summary as the status comment (capped to GitHub's field limit). */
export async function completeCheckRun(
  api: GitHubClient,
  args: RepoRef & {
    id: number;
    conclusion: CheckConclusion;
    title: string;
    summary: string;
    text?: string;
    completedAt?: Date;
  },
): Promise<void> {
  await callGitHub(`Completing Check Run ${args.id} on ${args.owner}/${args.repo}`, () =>
    api.rest.checks.update({
      owner: args.owner,
      repo: args.repo,
      check_run_id: args.id,
      status: "completed",
      conclusion: args.conclusion,
      completed_at: (args.completedAt ?? new Date()).toISOString(),
      output: {
        title: capText(args.title, 255),
        summary: capText(args.summary, OUTPUT_LIMIT),
        ...(args.text ? { text: capText(args.text, OUTPUT_LIMIT) } : {}),
      },
    }),
  );
}

/** `text` cut to `max` characters with a visible note when it was cut. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = "\n\n… (truncated)";
  return text.slice(0, Math.max(0, max - note.length)) + note;
}

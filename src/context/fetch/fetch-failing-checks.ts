import type { RepoGitHub } from "../../github/repo-github.js";
import type { CheckRunAnnotation, FailingCheckRun } from "../pr-data.js";

const FAILED = new Set(["failure", "timed_out", "startup_failure"]);

/**
 * The failing check runs of a commit with their annotations (up to 50 each). Runs made by `skipApp` (the bot's own
 * "aider-bot" check) are left out. An Actions run's job id is taken from its details URL (…/job/ID).
 */
export async function fetchFailingChecks(
  github: RepoGitHub,
  ref: string,
  skipApp?: string,
): Promise<FailingCheckRun[]> {
  const { items } = await github.listCheckRunsForRef(ref, 3);
  const failing = items.flatMap((r) =>
    r.conclusion && FAILED.has(r.conclusion) && r.app?.slug !== skipApp ? [{ ...r, conclusion: r.conclusion }] : [],
  );
  return Promise.all(
    failing.map(async (r): Promise<FailingCheckRun> => {
      const annotations = r.output.annotations_count > 0 ? await fetchAnnotations(github, Number(r.id)) : [];
      const job = r.app?.slug === "github-actions" ? /\/job\/(\d+)/.exec(r.details_url ?? "")?.[1] : undefined;
      return {
        id: Number(r.id),
        name: r.name,
        conclusion: r.conclusion,
        annotations,
        ...(r.output.title ? { title: r.output.title } : {}),
        ...(r.output.summary ? { summary: r.output.summary } : {}),
        ...(r.output.text ? { text: r.output.text } : {}),
        ...(r.details_url ? { detailsUrl: r.details_url } : {}),
        ...(job ? { jobId: Number(job) } : {}),
      };
    }),
  );
}

async function fetchAnnotations(github: RepoGitHub, id: number): Promise<CheckRunAnnotation[]> {
  const annotations = await github.listCheckRunAnnotations(id, 50);
  return annotations.map((a) => ({
    path: a.path,
    startLine: a.start_line,
    endLine: a.end_line,
    level: a.annotation_level ?? "failure",
    message: a.message ?? "",
    ...(a.title ? { title: a.title } : {}),
  }));
}

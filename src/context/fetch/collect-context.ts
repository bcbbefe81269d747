import type { RepoGitHub } from "../../github/repo-github.js";
import { fail, ok, type Result } from "../../result.js";
import {
  checksSource,
  closingIssuesSource,
  conversationSource,
  diffSource,
  priorRunsSource,
  threadsSource,
  type CountTokens,
} from "../build-sources.js";
import type { FailingCheckRun, IssueComment, PriorRun, ReviewThread } from "../pr-data.js";
import type { ContextSource } from "../types.js";
import { fetchClosingIssues } from "./fetch-closing-issues.js";
import { fetchFailingChecks } from "./fetch-failing-checks.js";
import { fetchIssueComments, priorRunsFrom } from "./fetch-issue-comments.js";
import { fetchJobLog } from "./fetch-job-log.js";
import { fetchPrFiles } from "./fetch-pr-files.js";
import { describeFailure } from "./describe-failure.js";
import { fetchReviewThreads } from "./review-threads.js";

export interface CollectArgs {
  number: number;
  isPullRequest: boolean;
  /** The PR's head commit (checks are read for it). */
  headSha?: string;
  botLogin: string;
  /** Our own check run's app slug, left out of the failing checks. */
  botAppSlug?: string;
  /** Files named by the request (`--file`) or by the chosen threads: their diffs come first. */
  preferPaths: readonly string[];
  /** `--thread` ids (empty: every unresolved thread). */
  onlyThreads: readonly string[];
  webUrl: string;
  /** Job log tails to read at most (each is one request). */
  maxLogs?: number;
  /** Comments left out of the conversation: the one that asked for this run (its instruction is the request). */
  skipCommentIds?: readonly number[];
  /**
   * The job reading this context: its own status comment ("queued", "in progress") is already on the page, and is
   * neither an earlier run for the model nor one for the status table's count.
   */
  ownJobId?: string;
}

export interface CollectedContext {
  sources: ContextSource[];
  threads: ReviewThread[];
  checks: FailingCheckRun[];
  priorRuns: PriorRun[];
  /** The conversation's comments as written (raw), for what sanitising removes from the model's copy (image links). */
  comments: IssueComment[];
}

/**
 * Read every context source of an issue or PR, each on its own: a source that fails (missing permission, API error)
 * becomes an "unavailable" note and the others still go in, so a run degrades instead of failing.
 */
export async function collectContext(
  github: RepoGitHub,
  a: CollectArgs,
  count: CountTokens,
): Promise<CollectedContext> {
  const page = `${a.webUrl}/${github.owner}/${github.repo}/${a.isPullRequest ? "pull" : "issues"}/${a.number}`;
  const guard = async <T>(what: string, f: () => Promise<T>): Promise<Result<T, "unavailable">> => {
    try {
      return ok(await f());
    } catch (error) {
      return fail("unavailable", describeFailure(what, error));
    }
  };
  const unavailable = (kind: ContextSource["kind"], seeAlso: string, note: string): ContextSource => ({
    kind,
    items: [],
    seeAlso,
    unavailable: note,
  });

  const [comments, files, threads, closing, checks] = await Promise.all([
    guard("The conversation", () => fetchIssueComments(github, a.number)),
    a.isPullRequest ? guard("The pull request's files", () => fetchPrFiles(github, a.number)) : null,
    a.isPullRequest ? guard("The review threads", () => fetchReviewThreads(github, a.number)) : null,
    a.isPullRequest ? guard("The closing issues", () => fetchClosingIssues(github, a.number)) : null,
    a.isPullRequest && a.headSha
      ? guard("The check runs", () => fetchFailingChecks(github, a.headSha!, a.botAppSlug))
      : null,
  ]);

  const failing = checks?.ok ? checks.value : [];
  for (const c of failing.filter((c) => c.jobId !== undefined).slice(0, a.maxLogs ?? 3)) {
    const log = await fetchJobLog(github, c.jobId!);
    if (log.ok) c.logTail = log.value;
    else c.logNote = log.message;
  }

  const chosen = threads?.ok
    ? threads.value.filter((t) => (a.onlyThreads.length ? a.onlyThreads.includes(t.id) : !t.isResolved))
    : [];
  const prefer = [...a.preferPaths, ...chosen.map((t) => t.path)];
  const priorRuns = comments.ok
    ? priorRunsFrom(comments.value.comments, a.botLogin).filter((r) => r.jobId !== a.ownJobId)
    : [];
  const sources: ContextSource[] = [
    comments.ok
      ? priorRunsSource(priorRuns, count, `my earlier status comments on ${page}`)
      : unavailable("prior_runs", page, comments.message),
  ];
  if (threads)
    sources.push(
      threads.ok
        ? threadsSource(threads.value, a.onlyThreads, count, `${page}/files`)
        : unavailable("review_threads", `${page}/files`, threads.message),
    );
  if (checks)
    sources.push(
      checks.ok
        ? checksSource(failing, count, `${page}/checks`)
        : unavailable("checks", `${page}/checks`, checks.message),
    );
  const conversation = comments.ok ? comments.value.comments.filter((c) => !a.skipCommentIds?.includes(c.id)) : [];
  sources.push(
    comments.ok ? conversationSource(conversation, count, page) : unavailable("conversation", page, comments.message),
  );
  if (closing)
    sources.push(
      closing.ok
        ? closingIssuesSource(closing.value, count, page)
        : unavailable("closing_issues", page, closing.message),
    );
  if (files)
    sources.push(
      files.ok
        ? diffSource(files.value.files, prefer, count, `${page}/files`)
        : unavailable("diff", `${page}/files`, files.message),
    );
  return {
    sources,
    threads: threads?.ok ? threads.value : [],
    checks: failing,
    priorRuns,
    comments: comments.ok ? comments.value.comments : [],
  };
}

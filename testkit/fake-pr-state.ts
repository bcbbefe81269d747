import type { CheckRunConclusion, FakeGitHubState, FakeRepo } from "./fake-github-state.js";
import type { Shape } from "./github-shapes.js";

/** A review thread of the fake: its comments are `repo.reviewComments` (the first, then replies to it). */
export interface FakeThread {
  id: string;
  pullNumber: number;
  firstCommentId: number;
  isResolved: boolean;
  isOutdated: boolean;
}

export interface FakeCheckExtras {
  appSlug: string;
  detailsUrl?: string;
  annotations: {
    path: string;
    start_line: number;
    end_line: number;
    annotation_level: NonNullable<Shape<"check-annotation">["annotation_level"]>;
    message: string;
    title?: string;
  }[];
}

/** Pull-request context the fake serves (kept beside FakeRepo so the core state file stays small). */
export interface FakePrState {
  threads: FakeThread[];
  diffHunks: Map<number, string>;
  closing: Map<number, number[]>;
  checkExtras: Map<number, FakeCheckExtras>;
  jobLogs: Map<number, string>;
  /** false: job logs answer 403, as for an App without `actions: read`. */
  actionsReadable: boolean;
}

const extras = new WeakMap<FakeRepo, FakePrState>();

export function prState(repo: FakeRepo): FakePrState {
  let s = extras.get(repo);
  if (!s) {
    s = {
      threads: [],
      diffHunks: new Map(),
      closing: new Map(),
      checkExtras: new Map(),
      jobLogs: new Map(),
      actionsReadable: true,
    };
    extras.set(repo, s);
  }
  return s;
}

/** Seed a review thread (first comment + optional replies); returns its GraphQL id. */
export function seedReviewThread(
  state: FakeGitHubState,
  repo: FakeRepo,
  t: {
    pullNumber: number;
    path: string;
    line: number;
    diffHunk: string;
    comments: { user: string; body: string }[];
    isResolved?: boolean;
    isOutdated?: boolean;
  },
): FakeThread {
  const posted = t.comments.map((c) => ({ ...c, id: state.id() }));
  const [first] = posted;
  if (!first) throw new Error("a review thread needs at least one comment");
  for (const c of posted) {
    repo.reviewComments.push({
      id: c.id,
      pullNumber: t.pullNumber,
      body: c.body,
      user: c.user,
      path: t.path,
      line: t.line,
      ...(c !== first ? { inReplyTo: first.id } : {}),
    });
  }
  prState(repo).diffHunks.set(first.id, t.diffHunk);
  const thread: FakeThread = {
    id: `PRRT_fake${first.id}`,
    pullNumber: t.pullNumber,
    firstCommentId: first.id,
    isResolved: t.isResolved ?? false,
    isOutdated: t.isOutdated ?? false,
  };
  prState(repo).threads.push(thread);
  return thread;
}

/** Seed a completed check run on a commit, as GitHub Actions (job id = check run id) or another app would. */
export function seedCheckRun(
  state: FakeGitHubState,
  repo: FakeRepo,
  c: {
    headSha: string;
    name: string;
    conclusion: CheckRunConclusion;
    title?: string;
    summary?: string;
    text?: string;
    appSlug?: string;
    annotations?: FakeCheckExtras["annotations"];
    log?: string;
  },
): number {
  const id = state.id();
  repo.checkRuns.push({
    id,
    name: c.name,
    headSha: c.headSha,
    status: "completed",
    conclusion: c.conclusion,
    output: { title: c.title, summary: c.summary, text: c.text },
  });
  const appSlug = c.appSlug ?? "github-actions";
  prState(repo).checkExtras.set(id, {
    appSlug,
    annotations: c.annotations ?? [],
    ...(appSlug === "github-actions"
      ? { detailsUrl: `https://github.com/${repo.owner}/${repo.name}/actions/runs/1/job/${id}` }
      : {}),
  });
  if (c.log !== undefined) prState(repo).jobLogs.set(id, c.log);
  return id;
}

/** Seed an issue comment by someone else. */
export function seedIssueComment(
  state: FakeGitHubState,
  repo: FakeRepo,
  issueNumber: number,
  user: string,
  body: string,
  createdAt = new Date().toISOString(),
): number {
  const id = state.id();
  repo.comments.push({ id, issueNumber, body, user, createdAt, updatedAt: createdAt });
  return id;
}

/** What the fetchers read from GitHub about a pull request or issue, in the shapes the context builders take. */
export interface PrFile {
  path: string;
  /** added | removed | modified | renamed | copied | changed | unchanged */
  status: string;
  additions: number;
  deletions: number;
  /** Absent for binary files and for diffs GitHub does not return (too large). */
  patch?: string;
  previousPath?: string;
}

export interface IssueComment {
  id: number;
  author: string;
  body: string;
  createdAt: string;
  isBot: boolean;
}

export interface ThreadComment {
  /** REST id of the review comment (what a reply is posted to). */
  databaseId: number | null;
  author: string;
  body: string;
  diffHunk?: string;
}

export interface ReviewThread {
  /** GraphQL node id (PRRT_…), what `--thread` and `resolveReviewThread` take. */
  id: string;
  path: string;
  line: number | null;
  isResolved: boolean;
  isOutdated: boolean;
  comments: ThreadComment[];
}

export interface ClosingIssue {
  number: number;
  title: string;
  body: string;
}

export interface CheckRunAnnotation {
  path: string;
  startLine: number;
  endLine: number;
  level: string;
  title?: string;
  message: string;
}

export interface FailingCheckRun {
  id: number;
  name: string;
  conclusion: string;
  title?: string;
  summary?: string;
  text?: string;
  detailsUrl?: string;
  annotations: CheckRunAnnotation[];
  /** Actions job id, when the check run is a GitHub Actions job (its log can be read). */
  jobId?: number;
  logTail?: string;
  /** Why the log is missing (e.g. no `actions: read` permission). */
  logNote?: string;
}

export type PriorOutcome = "pushed" | "pull-request" | "answered" | "reverted" | "failed" | "in-progress" | "other";

export interface PriorRun {
  jobId: string;
  /** run | ask | undo (undo runs store no request: their outcome is "reverted"). */
  verb: string;
  request: string;
  outcome: PriorOutcome;
  /** The status comment's visible text (answer, explanation, failure), without markers. */
  answer: string;
  commit?: string;
  files: string[];
  createdAt: string;
  url?: string;
}

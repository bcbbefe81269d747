import type {
  CheckSuiteCompletedEvent,
  Issue,
  IssueComment,
  PullRequestReviewComment,
  Repository,
  User,
} from "@octokit/webhooks-types";

// The one typed edge: every event the bot acts on — a webhook to the App, the event file of an Action run — is read
// once, where it enters (parse-webhook.ts), into one of these values. Their fields are GitHub's (typed by
// `@octokit/webhooks-types`), checked and named for what the bot uses them for; nothing after the edge reads a
// payload.

/** The repository an event is about, as the event names it. */
export interface EventRepository {
  id: Repository["id"];
  owner: User["login"];
  name: Repository["name"];
  /** `owner/name`. */
  fullName: Repository["full_name"];
  cloneUrl: Repository["clone_url"];
  /** Its web address (`html_url`): links are built from it, never guessed. */
  webUrl: Repository["html_url"];
  defaultBranch: Repository["default_branch"];
  /** Its main language as GitHub detects it, when it names one. */
  language?: string;
}

/** Who caused the event. */
export interface EventSender {
  login: User["login"];
  id: User["id"];
  /** `User`, `Bot` or `Organization`. */
  type: User["type"];
}

/** The issue or pull request an event is about. */
export interface EventThread {
  number: Issue["number"];
  isPullRequest: boolean;
  title: Issue["title"];
  /** "" where GitHub sends none (`null`). */
  body: string;
  /** Who opened it. */
  author: User["login"];
  /** The label names it carries (an issue's; empty for a pull request seen through a review comment). */
  labels: string[];
  updatedAt: Issue["updated_at"];
  /** The App that opened it, when one did. */
  appId?: number;
}

/** An issue comment or a review comment. */
export interface EventComment {
  id: IssueComment["id"];
  body: IssueComment["body"];
  author: User["login"];
  /** The App that wrote it, when one did: bots are told apart by it. */
  appId?: number;
}

/** Where a review comment sits in the diff. */
export interface EventReviewLine {
  path: PullRequestReviewComment["path"];
  /** The line in the diff's new side, or the original line of an outdated comment. */
  line?: number;
  diffHunk: PullRequestReviewComment["diff_hunk"];
}

/** A completed check suite, as `ci.autofix` reads it. */
export interface EventCheckSuite {
  conclusion: CheckSuiteCompletedEvent["check_suite"]["conclusion"];
  headSha: CheckSuiteCompletedEvent["check_suite"]["head_sha"];
  appId: number;
  appSlug?: string;
  /** Open pull requests of THIS repository whose head is the suite's commit (GitHub lists forks' PRs too). */
  pullNumbers: number[];
}

/** The repository of an Action's own events (`schedule`, `workflow_dispatch`), when their file names it. */
export type ActionRepository = Pick<EventRepository, "cloneUrl" | "defaultBranch">;

/** What every webhook to the App carries: its delivery, installation, repository and sender. */
interface WebhookBase {
  /** X-GitHub-Delivery (the Action: its run key). */
  delivery: string;
  /**
   * The App installation the event came through. An Action run has none (the workflow's token belongs to no
   * installation): there it is 0, which only the App's job engine would read.
   */
  installationId: number;
  repository: EventRepository;
  sender: EventSender;
}

/** One event the bot acts on, by kind. */
export type BotEvent =
  /** `issue_comment.created`: maybe a command. */
  | (WebhookBase & { kind: "comment"; thread: EventThread; comment: EventComment })
  /** `issue_comment.edited`, its body changed: maybe a plan's approve box ticked. */
  | (WebhookBase & { kind: "comment-edit"; thread: EventThread; comment: EventComment; before: string })
  /** `pull_request_review_comment.created`: maybe a command on a line of the diff. */
  | (WebhookBase & { kind: "review-comment"; thread: EventThread; comment: EventComment; review: EventReviewLine })
  /** `issues.opened` / `issues.labeled`: maybe the trigger label. */
  | (WebhookBase & { kind: "issue-label"; action: "opened" | "labeled"; thread: EventThread; label?: string })
  /** `check_suite.completed` (`ci.autofix`). */
  | (WebhookBase & { kind: "check-suite"; suite: EventCheckSuite })
  /** `issues.edited`, its body changed: maybe a "Run now" box of a schedules dashboard ticked. */
  | (WebhookBase & { kind: "issue-edit"; thread: EventThread; before: string })
  /** `push`: a push to the default branch drops the repository's cached config. */
  | { kind: "push"; delivery: string; repository: EventRepository; ref: string }
  /** The Action's `schedule` event: the cron that fired. */
  | { kind: "schedule"; delivery: string; cron: string; repository?: ActionRepository }
  /** The Action's `workflow_dispatch`: a request typed into the workflow's form, on a branch. */
  | {
      kind: "dispatch";
      delivery: string;
      ref: string;
      message?: string;
      sender: EventSender;
      repository?: ActionRepository;
    };

export type BotEventKind = BotEvent["kind"];
/** The events a person (or bot) asks something of the bot with: a command, a plan approval, the trigger label. */
export type CommandEvent = Extract<BotEvent, { kind: "comment" | "comment-edit" | "review-comment" | "issue-label" }>;
export type CheckSuiteEvent = Extract<BotEvent, { kind: "check-suite" }>;
export type IssueEditEvent = Extract<BotEvent, { kind: "issue-edit" }>;
export type PushEvent = Extract<BotEvent, { kind: "push" }>;

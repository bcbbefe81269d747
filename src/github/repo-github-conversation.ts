import {
  createComment,
  ensureComment,
  findComment,
  listComments,
  readCommentBody,
  updateComment,
  type IssueComment,
} from "./ensure-comment.js";
import { ensureStatusComment } from "./ensure-status-comment.js";
import type { GitHubClient, RepoBound, RepoRef } from "./github-client.js";
import {
  createIssue,
  findIssueByMarker,
  getIssueBody,
  listIssueComments,
  updateIssueBody,
  type IssueCommentData,
  type IssueRef,
} from "./issues.js";
import { addReaction, type BotReaction, type ReactionTarget } from "./reactions.js";

/**
 * Issues and their conversations through the gateway (a pull request's conversation is its issue's): comments,
 * the bot's marked comments, reactions and tracking issues. Every method may also throw the transport kinds listed
 * on {@link RepoGitHub}; a write may throw `forbidden` when the App lacks `issues: write` (or `pull_requests: write`).
 */
export interface RepoGitHubConversation {
  /**
   * Every comment of an issue/PR as `{ id, body, user }`, oldest first (up to 2,000).
   * @throws {@link GitHubError} `not-found`: no such issue or PR.
   */
  listComments(issueNumber: number): Promise<IssueComment[]>;
  /**
   * The conversation as GitHub describes each comment (`issue-comment`), up to `maxPages` pages of 100.
   * @throws {@link GitHubError} `not-found`: no such issue or PR.
   */
  listIssueComments(issueNumber: number, maxPages: number): Promise<{ items: IssueCommentData[]; truncated: boolean }>;
  /**
   * The newest comment carrying `marker` (written by `botLogin` when given), or null.
   * @throws {@link GitHubError} `not-found`: no such issue or PR.
   */
  findComment(args: {
    issueNumber: number;
    marker: string;
    botLogin?: string;
    /** The thread's comments, when the caller started reading them earlier. */
    listed?: Promise<IssueComment[]>;
  }): Promise<{ id: number; body: string } | null>;
  /**
   * A new comment; its id.
   * @throws {@link GitHubError} `not-found` (no such issue), `forbidden`, `validation` (locked thread, body refused).
   */
  createComment(issueNumber: number, body: string): Promise<number>;
  /**
   * Replace a comment's body.
   * @throws {@link GitHubError} `not-found` (deleted), `forbidden`, `validation`.
   */
  updateComment(commentId: number, body: string): Promise<void>;
  /**
   * Create or edit the comment carrying `marker` (a redelivery edits the same one); its id.
   * @throws {@link GitHubError} `not-found`, `forbidden`, `validation`.
   */
  ensureComment(args: {
    issueNumber: number;
    marker: string;
    body: string;
    botLogin?: string;
    /** The thread's comments, when the caller started reading them earlier. */
    listed?: Promise<IssueComment[]>;
  }): Promise<number>;
  /**
   * Create or edit the ONE status comment of run `jobId` (edits `commentId` directly when known; posts without
   * listing when `known: "none-yet"`); its id.
   * @throws {@link GitHubError} `not-found`, `forbidden`, `validation`.
   */
  ensureStatusComment(args: RepoBound<typeof ensureStatusComment>): Promise<number>;
  /**
   * The body of a conversation or review comment; null when it is gone (a 404 is an answer, not a throw).
   * @throws {@link GitHubError} `forbidden`.
   */
  readCommentBody(kind: "issue-comment" | "review-comment", id: number): Promise<string | null>;
  /**
   * Add 👀/🚀/😕 on the command's comment or the issue (GitHub answers the existing one for a repeat).
   * @throws {@link GitHubError} `not-found` (the comment was deleted), `forbidden`.
   */
  addReaction(target: ReactionTarget, content: BotReaction): Promise<void>;
  /**
   * An issue's body as it is now.
   * @throws {@link GitHubError} `not-found`.
   */
  getIssueBody(issueNumber: number): Promise<string>;
  /**
   * Replace an issue's body.
   * @throws {@link GitHubError} `not-found`, `forbidden`, `validation`.
   */
  updateIssueBody(issueNumber: number, body: string): Promise<void>;
  /**
   * Open an issue.
   * @throws {@link GitHubError} `forbidden`, `validation`, `not-found` (issues are disabled there: GitHub answers 410).
   */
  createIssue(title: string, body: string): Promise<IssueRef>;
  /**
   * The issue (not PR) opened by `creator` whose body carries `marker`, among its open ones or all; null when none.
   * @throws {@link GitHubError} `not-found` (issues disabled).
   */
  findIssueByMarker(args: { creator: string; marker: string; state: "open" | "all" }): Promise<IssueRef | null>;
}

/** {@link RepoGitHubConversation} over `api`, bound to `where`. */
export function bindConversation(api: GitHubClient, where: RepoRef): RepoGitHubConversation {
  return {
    listComments: (issueNumber) => listComments(api, { ...where, issueNumber }),
    listIssueComments: (number, maxPages) => listIssueComments(api, { ...where, number, maxPages }),
    findComment: (args) => findComment(api, { ...where, ...args }),
    createComment: (issueNumber, body) => createComment(api, { ...where, issueNumber, body }),
    updateComment: (commentId, body) => updateComment(api, { ...where, commentId, body }),
    ensureComment: (args) => ensureComment(api, { ...where, ...args }),
    ensureStatusComment: (args) => ensureStatusComment(api, { ...where, ...args }),
    readCommentBody: (kind, id) => readCommentBody(api, { ...where, kind, id }),
    addReaction: (target, content) => addReaction(api, where, target, content),
    getIssueBody: (number) => getIssueBody(api, { ...where, number }),
    updateIssueBody: (number, body) => updateIssueBody(api, { ...where, number, body }),
    createIssue: (title, body) => createIssue(api, { ...where, title, body }),
    findIssueByMarker: (args) => findIssueByMarker(api, { ...where, ...args }),
  };
}

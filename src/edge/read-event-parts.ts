import type { EventComment, EventRepository, EventSender, EventThread } from "./bot-event.js";
import type { PayloadReader } from "./payload-reader.js";

// The parts several events share, each read from its place in a payload (parse-webhook.ts says which).

export function readRepository(p: PayloadReader): EventRepository {
  const language = p.optionalString("repository.language");
  return {
    id: p.int("repository.id"),
    owner: p.text("repository.owner.login"),
    name: p.text("repository.name"),
    fullName: p.text("repository.full_name"),
    cloneUrl: p.text("repository.clone_url"),
    webUrl: p.text("repository.html_url"),
    defaultBranch: p.text("repository.default_branch"),
    ...(language ? { language } : {}),
  };
}

export function readSender(p: PayloadReader): EventSender {
  return { login: p.text("sender.login"), id: p.int("sender.id"), type: p.text("sender.type") as EventSender["type"] };
}

/** An issue (`issue`) or a pull request (`pull_request`, which is always one). */
export function readThread(p: PayloadReader, at: "issue" | "pull_request"): EventThread {
  const appId = p.has(`${at}.performed_via_github_app`) ? p.int(`${at}.performed_via_github_app.id`) : undefined;
  return {
    number: p.int(`${at}.number`),
    isPullRequest: at === "pull_request" || p.has("issue.pull_request"),
    title: p.string(`${at}.title`),
    body: p.nullableString(`${at}.body`),
    author: p.text(`${at}.user.login`),
    labels: p.list(`${at}.labels`).map((label) => label.string("name")),
    updatedAt: p.text(`${at}.updated_at`),
    ...(appId !== undefined ? { appId } : {}),
  };
}

export function readComment(p: PayloadReader): EventComment {
  const appId = p.has("comment.performed_via_github_app") ? p.int("comment.performed_via_github_app.id") : undefined;
  return {
    id: p.int("comment.id"),
    body: p.string("comment.body"),
    author: p.text("comment.user.login"),
    ...(appId !== undefined ? { appId } : {}),
  };
}

import { readWebhookEvent } from "../../src/triage/webhook-event.js";

const repository = { owner: { login: "octo" }, name: "demo" };

describe("readWebhookEvent", () => {
  test("a comment with its issue and id is an issue_comment event", () => {
    const read = readWebhookEvent("issue_comment", {
      action: "created",
      repository,
      issue: { number: 7 },
      comment: { id: 3, body: "/aider hi" },
    });
    expect(read.ok && read.event.name).toBe("issue_comment");
  });

  test("a payload without a repository is ignored, saying so", () => {
    expect(readWebhookEvent("issue_comment", { action: "created" })).toEqual({
      ok: false,
      reason: "no repository in payload",
    });
  });

  test("an event or action the triage does not handle is named", () => {
    expect(readWebhookEvent("issue_comment", { action: "deleted", repository })).toEqual({
      ok: false,
      reason: "event issue_comment.deleted is not handled",
    });
    expect(readWebhookEvent("push", { repository })).toEqual({
      ok: false,
      reason: "event push.undefined is not handled",
    });
  });

  test("a review comment without its pull request is not decided on", () => {
    const read = readWebhookEvent("pull_request_review_comment", { action: "created", repository, comment: { id: 1 } });
    expect(read.ok).toBe(false);
  });
});

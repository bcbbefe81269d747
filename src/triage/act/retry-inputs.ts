import { parseCommand } from "../../commands/parse-command.js";
import { describeMode } from "../../context/pr-run-spec.js";
import { readRequestMarker, type StoredRequest } from "../../github/markers.js";
import type { RepoGitHub } from "../../github/repo-github.js";
import { fail, ok, type Result } from "../../result.js";
import type { RunRequest } from "../../run/run-request.js";
import type { EventAction } from "../decide-command.js";

type Enqueue = Extract<EventAction, { kind: "enqueue" }>;

/** What a job runs: the command's own verb, text, flags and mode, or (`retry`) those of the earlier request. */
export interface RequestInputs {
  verb: RunRequest["verb"];
  text: string;
  flags: Enqueue["flags"];
  mode: Enqueue["mode"];
}

export type RetryRefusal = "nothing-to-retry" | "request-gone";

/** `retry`: the last request of the bot's status comments here, with the flags given now taking precedence. */
export async function retryInputs(
  github: RepoGitHub,
  action: Enqueue,
  botLogin: string,
): Promise<Result<RequestInputs, RetryRefusal>> {
  const { facts, config } = action;
  const comments = await github.listComments(facts.number);
  const last = comments
    .filter((c) => c.user === botLogin)
    .map((c) => readRequestMarker(c.body))
    .filter((r) => r !== null)
    .at(-1);
  if (!last) return fail("nothing-to-retry", "There is no earlier request of mine here to retry.");
  // A pull-request loop (address-reviews, fix-ci) runs again as one; its text is the mode's own description.
  const mode = last.mode;
  if (mode && !facts.isPullRequest)
    return fail(
      "nothing-to-retry",
      "My last request here was for a pull request; there is nothing to retry on an issue.",
    );
  const earlier = mode ? ok(describeMode(mode)) : await requestText(github, last, config.trigger.command);
  if (!earlier.ok) return earlier;
  const flags = {
    files: action.flags.files.length ? action.flags.files : last.files,
    editFormat: action.flags.editFormat ?? (last.editFormat as Enqueue["flags"]["editFormat"]),
    model: action.flags.model ?? last.model,
  };
  return ok({ verb: last.verb, text: earlier.value, flags, mode });
}

/**
 * The instruction of an earlier request: kept in its marker, or (a long one) read again from the comment that asked
 * for it. A deleted or edited-away comment is an error the requester can act on.
 */
async function requestText(
  github: RepoGitHub,
  stored: StoredRequest,
  word: string,
): Promise<Result<string, "request-gone">> {
  if (stored.text !== undefined || !stored.textRef) return ok(stored.text ?? "");
  const ref = stored.textRef;
  const gone = fail(
    "request-gone",
    "The comment with my earlier request is gone or no longer holds the command, so there is nothing to retry; post the request again.",
  );
  const body = await github.readCommentBody(ref.kind, ref.id);
  if (body === null) return gone;
  const command = parseCommand(body, word);
  return command && (command.verb === "run" || command.verb === "ask") ? ok(command.text) : gone;
}

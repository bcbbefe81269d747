import { readRequestMarker, runMarker } from "../github/markers.js";
import type { PriorOutcome, PriorRun } from "./pr-data.js";

// The run marker's shape comes from markers.ts itself, so a change there changes this reader with it.
const [RUN_BEFORE, RUN_AFTER] = runMarker("\u0000").split("\u0000") as [string, string];
const RUN_RE = new RegExp(`${escape(RUN_BEFORE)}([^\\s>]+?)${escape(RUN_AFTER)}`);

/**
 * An earlier run, read back from the bot's status comment (pure): the stored request, the outcome line, the commit,
 * the files list and the visible text. Null for comments that are not run status comments. State lives in GitHub:
 * no database is needed to remember what the bot did on a pull request.
 */
export function readPriorRun(comment: { body: string; createdAt: string; url?: string }): PriorRun | null {
  const job = RUN_RE.exec(comment.body);
  if (!job) return null;
  const request = readRequestMarker(comment.body);
  const body = comment.body.replace(/<!--[\s\S]*?-->/g, "").trim();
  const reverted = /↩️ Reverted \[`([0-9a-f]{7,40})`\]/.exec(body);
  const pushed = /🚀 Pushed \[`([0-9a-f]{7,40})`\]\(([^)\s]*)\)/.exec(body);
  const outcome: PriorOutcome = reverted
    ? "reverted"
    : pushed
      ? "pushed"
      : /🚀 Opened #\d+/.test(body)
        ? "pull-request"
        : /⏳/.test(body)
          ? "in-progress"
          : /😕|🤷|🛑/.test(body)
            ? "failed"
            : request?.verb === "ask"
              ? "answered"
              : "other";
  const fullSha = pushed?.[2] ? /\/commit\/([0-9a-f]{40})/.exec(pushed[2])?.[1] : undefined;
  const files = [...(/\*\*Files changed\*\*\n((?:- .*\n?)+)/.exec(body)?.[1] ?? "").matchAll(/^- `([^`]+)`/gm)].map(
    (m) => m[1]!,
  );
  const answer = body
    .replace(/<details>[\s\S]*?<\/details>/g, "")
    .replace(/<sub>[\s\S]*?<\/sub>/g, "")
    .replace(/\*\*Files changed\*\*\n(?:- .*\n?)+/, "")
    .trim();
  return {
    jobId: job[1]!,
    verb: request?.verb ?? (reverted ? "undo" : "run"),
    request: request?.text ?? "",
    outcome,
    answer,
    ...(reverted ? { commit: reverted[1]! } : pushed ? { commit: fullSha ?? pushed[1]! } : {}),
    files,
    createdAt: comment.createdAt,
    ...(comment.url ? { url: comment.url } : {}),
  };
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

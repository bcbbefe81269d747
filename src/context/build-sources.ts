import type { ClosingIssue, FailingCheckRun, IssueComment, PrFile, PriorRun, ReviewThread } from "./pr-data.js";
import { sanitiseCode, sanitiseText } from "./sanitise-text.js";
import type { ContextItem, ContextSource } from "./types.js";

/** Token counter, injected (the real one is `countTokens` from llm/count-tokens). */
export type CountTokens = (text: string) => number;

/** Newest first, by GitHub's ISO 8601 timestamps (compared as text: no locale collation, which loads ICU's data). */
const newestFirst = (a: { createdAt: string }, b: { createdAt: string }): number =>
  a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0;

const item = (
  count: CountTokens,
  id: string,
  label: string,
  text: string,
  extra: Partial<ContextItem> = {},
): ContextItem => ({
  id,
  label: sanitiseText(label, { note: false }).text,
  text,
  tokens: count(text) + count(label) + 4,
  ...extra,
});

/** The PR's diff, one item per file; files the request or the review threads name come first (pure). */
export function diffSource(
  files: readonly PrFile[],
  prefer: readonly string[],
  count: CountTokens,
  seeAlso: string,
): ContextSource {
  const rank = (f: PrFile) => (prefer.includes(f.path) ? 0 : 1);
  const ordered = [...files].sort((a, b) => rank(a) - rank(b));
  return {
    kind: "diff",
    seeAlso,
    items: ordered.map((f) => {
      const label = `${f.previousPath ? `${f.previousPath} → ` : ""}${f.path} (${f.status}, +${f.additions} −${f.deletions})`;
      const text =
        f.patch === undefined
          ? "(no textual diff: a binary file or a diff too large for the API)"
          : fence(sanitiseCode(f.patch).text, "diff");
      return item(count, f.path, label, text);
    }),
  };
}

/** Issue comments, newest first; the bot's own comments are left to the earlier-runs source (pure). */
export function conversationSource(
  comments: readonly IssueComment[],
  count: CountTokens,
  seeAlso: string,
): ContextSource {
  const human = comments.filter((c) => !c.body.includes("<!-- aider-bot:"));
  const newest = [...human].sort(newestFirst);
  return {
    kind: "conversation",
    seeAlso,
    items: newest.map((c) =>
      item(count, String(c.id), `@${c.author}, ${c.createdAt.slice(0, 10)}`, sanitiseText(c.body).text),
    ),
  };
}

/** Review threads: the chosen (or all unresolved) ones first with their hunk, then resolved ones (pure). */
export function threadsSource(
  threads: readonly ReviewThread[],
  only: readonly string[],
  count: CountTokens,
  seeAlso: string,
): ContextSource {
  const wanted = (t: ReviewThread) => (only.length ? only.includes(t.id) : !t.isResolved);
  const ordered = [...threads.filter(wanted), ...threads.filter((t) => !wanted(t))];
  return {
    kind: "review_threads",
    seeAlso,
    items: ordered.map((t) => item(count, t.id, threadLabel(t), renderThread(t))),
  };
}

export function threadLabel(t: ReviewThread): string {
  const state = [t.isResolved ? "resolved" : "unresolved", t.isOutdated ? "outdated" : ""].filter(Boolean).join(", ");
  return `thread ${t.id} on ${t.path}${t.line ? ` line ${t.line}` : ""} (${state})`;
}

function renderThread(t: ReviewThread): string {
  const hunk = t.comments.find((c) => c.diffHunk)?.diffHunk;
  const comments = t.comments.map((c) => `@${c.author}: ${sanitiseText(c.body).text}`).join("\n\n");
  return `${hunk ? `${fence(sanitiseCode(hunk).text, "diff")}\n` : ""}${comments}`;
}

export function closingIssuesSource(
  issues: readonly ClosingIssue[],
  count: CountTokens,
  seeAlso: string,
): ContextSource {
  return {
    kind: "closing_issues",
    seeAlso,
    items: issues.map((i) => item(count, `#${i.number}`, `#${i.number}: ${i.title}`, sanitiseText(i.body).text)),
  };
}

/** Failing checks: one item for the summary and annotations, one for the log tail (shortened from its start). */
export function checksSource(
  checks: readonly FailingCheckRun[],
  count: CountTokens,
  seeAlso: string,
  unavailable?: string,
): ContextSource {
  const items: ContextItem[] = [];
  for (const c of checks) {
    const annotations = c.annotations.map(
      (a) =>
        `- ${a.level} ${a.path}:${a.startLine}${a.endLine !== a.startLine ? `-${a.endLine}` : ""}${a.title ? ` ${a.title}` : ""}: ${a.message}`,
    );
    const text = [
      `conclusion: ${c.conclusion}`,
      c.title ? `title: ${c.title}` : "",
      c.summary ? `summary:\n${c.summary}` : "",
      c.text ? `details:\n${c.text}` : "",
      annotations.length ? `annotations:\n${annotations.join("\n")}` : "",
      c.logNote ? `log: ${c.logNote}` : "",
    ]
      .filter(Boolean)
      .join("\n");
    items.push(item(count, String(c.id), `check "${c.name}"`, sanitiseText(text).text));
    if (c.logTail)
      items.push(
        item(count, `${c.id}-log`, `check "${c.name}": end of the job log`, fence(sanitiseCode(c.logTail).text, ""), {
          keep: "tail",
        }),
      );
  }
  return { kind: "checks", seeAlso, items, ...(unavailable ? { unavailable } : {}) };
}

/** Earlier bot runs, newest first (the most relevant survive a tight budget); long ones may be summarised. */
export function priorRunsSource(runs: readonly PriorRun[], count: CountTokens, seeAlso: string): ContextSource {
  const newest = [...runs].sort(newestFirst);
  return {
    kind: "prior_runs",
    seeAlso,
    items: newest.map((r) =>
      item(
        count,
        r.jobId,
        `${r.createdAt.slice(0, 16).replace("T", " ")}: ${r.verb === "undo" ? "undo" : `${r.verb} request`}`,
        renderRun(r),
        { summarisable: true },
      ),
    ),
  };
}

function renderRun(r: PriorRun): string {
  if (r.verb === "undo")
    return `The maintainer ran \`undo\`: my earlier commit${r.commit ? ` ${r.commit.slice(0, 7)}` : ""} was reverted. Do not redo it unless asked.`;
  return [
    `request: ${sanitiseText(r.request).text}`,
    `outcome: ${r.outcome}${r.commit ? ` (commit ${r.commit.slice(0, 7)})` : ""}`,
    r.files.length ? `files changed: ${r.files.join(", ")}` : "",
    r.answer ? `what I said:\n${sanitiseText(r.answer).text}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

function fence(text: string, lang: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text.replace(/\n$/, "")}\n${f}`;
}

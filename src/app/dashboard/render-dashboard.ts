import { DASHBOARD_MARKER, runNowLine, stateLine, type LastRun } from "./dashboard-body.js";

/** One schedule as the dashboard shows it. */
export interface DashboardEntry {
  key: string;
  cron: string;
  timezone?: string;
  message: string;
  stack: boolean;
  /** The next tick, or null when the cron never fires again. */
  next: Date | null;
  last?: LastRun;
  /** Keep its "Run now" box ticked (a tick not yet handled survives a re-render). */
  ticked?: boolean;
}

/** A time as GitHub readers expect it, in UTC, to the minute: `2026-11-30 06:00 UTC`. */
export function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * Text inside a line shown exactly as written: each character that can start Markdown, HTML or GitHub's extensions
 * there (emphasis, code, links, images, `<!--` comments and so the dashboard's hidden markers, table cells,
 * strikethrough, entities, emoji, math) is backslash-escaped, which Markdown renders as the character itself. So
 * `SCHED_ONE` is not emphasis and no character the user wrote is dropped. Not for the start of a line.
 */
export function markdownText(text: string): string {
  return text.replace(/[\\`*_[\]<>()!#|~&:$]/g, "\\$&");
}

/** A code span in a table cell: a fence no backtick inside can end, and `|` escaped (GitHub's tables read it first). */
export function tableCode(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ");
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  const pad = longest || flat.startsWith(" ") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`.replace(/\|/g, "\\|");
}

/** A schedule's request as a one-line heading: its first line, ≤ 80 characters, shown as written (see markdownText). */
export function headline(message: string): string {
  const first = (message.split("\n").find((l) => l.trim()) ?? "").trim();
  if (!first) return "(no message)";
  return markdownText(first.length > 80 ? `${first.slice(0, 79)}…` : first);
}

const OUTCOMES: Record<string, string> = {
  started: "⏳ started",
  skipped: "⏭️ skipped",
  "pull-request": "🚀 opened a pull request",
  pushed: "🚀 pushed",
  patch: "📎 left a patch",
  "not-pushed": "😕 not pushed",
  answered: "💬 answered",
  "nothing-to-do": "✅ nothing to do",
  refused: "⛔ refused",
  error: "😕 failed",
  cancelled: "⏹️ cancelled",
  crashed: "💥 interrupted",
};

/** The "last run" cell: when, how it went, and its PR and tracking issue (GitHub links `#n` itself). */
export function renderLastRun(last: LastRun | undefined): string {
  if (!last) return "never";
  const parts = [formatTime(new Date(last.at)), OUTCOMES[last.outcome] ?? last.outcome];
  if (last.pr !== undefined) parts.push(last.outcome === "skipped" ? `#${last.pr} is still open` : `#${last.pr}`);
  if (last.issue !== undefined && last.pr === undefined) parts.push(`on #${last.issue}`);
  if (last.by) parts.push(`run now by @${last.by}`);
  return parts.join(" · ");
}

/**
 * The dashboard issue's body (pure): what is scheduled in `.github/aider.yml`, when it runs next, how its last run
 * went, and a "Run now" box per schedule. Hidden lines carry the dashboard's memory (see dashboard-body).
 */
export function renderDashboard(entries: readonly DashboardEntry[], args: { minPermission: string }): string {
  const lines = [
    DASHBOARD_MARKER,
    "This issue lists the scheduled requests of `.github/aider.yml` (`schedules:`) and is kept up to date by aider-bot.",
    `Tick **Run now** to start one at once (needs \`${args.minPermission}\` permission, like an \`/aider\` command). A tick is skipped while the schedule's last pull request is still open, unless the entry sets \`stack: true\`.`,
    "",
  ];
  entries.forEach((e, i) => {
    lines.push(
      `### ${i + 1}. ${headline(e.message)}`,
      "",
      "| Cron | Time zone | Next run | Last run |",
      "| --- | --- | --- | --- |",
      `| ${tableCode(e.cron)} | ${markdownText((e.timezone ?? "UTC").replace(/\s+/g, " "))}${e.stack ? " (stacks)" : ""} | ${e.next ? formatTime(e.next) : "never"} | ${renderLastRun(e.last)} |`,
      "",
      runNowLine(e.key, e.ticked ?? false),
      ...(e.last ? [stateLine(e.key, e.last)] : []),
      "",
    );
  });
  if (entries.length === 0) lines.push("No schedules are configured any more.", "");
  return lines.join("\n");
}

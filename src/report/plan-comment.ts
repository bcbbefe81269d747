import { parsePlan } from "../coder/plan/parse-plan.js";
import { capMarkdown } from "../github/cap-markdown.js";

/** Where a plan stands: waiting for approval, approved (its run started), replaced by a newer plan, or dropped. */
export type PlanState = "active" | "approved" | "superseded" | "dropped";

/** Everything a plan comment carries in its hidden marker: what is needed to run it later. */
export interface PlanRecord {
  /** The plan's id: the job id of the run that made it. */
  id: string;
  /** The head commit the plan was made on: an approval after the branch moved is refused. */
  sha: string;
  state: PlanState;
  /** The architect's plan, as the editor will get it. */
  text: string;
  requester: string;
  model: string;
  /** The request the plan answers (its first 500 characters). */
  request: string;
  /** Indexes of the steps ticked as done. */
  done: number[];
  /** Who approved it or dropped it. */
  by?: string;
}

/** The longest plan kept (the marker holds it whole and the comment shows it once more, within 65,536 characters). */
export const PLAN_TEXT_LIMIT = 12_000;

const MARKER = /<!-- aider-bot:plan:([A-Za-z0-9+/=]+) -->/;
const STEPS_START = "<!-- aider-bot:plan-steps -->";
const STEPS_END = "<!-- aider-bot:plan-steps-end -->";
const APPROVE_LABEL = "**Approve and run this plan**";
const APPROVE_LINE = /^- \[( |x|X)\] \*\*Approve and run this plan\*\*/m;

export const planMarker = (rec: PlanRecord) =>
  `<!-- aider-bot:plan:${Buffer.from(JSON.stringify(rec), "utf8").toString("base64")} -->`;

/** The plan record of a comment body, or null (no marker, or not one we wrote). */
export function readPlanRecord(body: string): PlanRecord | null {
  const m = MARKER.exec(body);
  if (!m) return null;
  try {
    const v = JSON.parse(Buffer.from(m[1]!, "base64").toString("utf8")) as PlanRecord;
    const states: PlanState[] = ["active", "approved", "superseded", "dropped"];
    if (
      typeof v.id !== "string" ||
      typeof v.sha !== "string" ||
      typeof v.text !== "string" ||
      !states.includes(v.state) ||
      !Array.isArray(v.done)
    )
      return null;
    return {
      ...v,
      done: v.done.filter((n) => Number.isInteger(n)),
      requester: String(v.requester ?? ""),
      model: String(v.model ?? ""),
      request: String(v.request ?? ""),
    };
  } catch {
    return null;
  }
}

/**
 * The plan comment (pure): the plan with its steps as a task list (ticked as the approved run does them), and the
 * approve checkbox while the plan waits. `head` is the comment's other hidden markers (the run marker).
 * `renderPlanComment(rec, { command: "aider" })`
 */
export function renderPlanComment(rec: PlanRecord, opts: { command: string; head?: string }): string {
  const quote = `> ${rec.request
    .trim()
    .split("\n")[0]!
    .slice(0, 200)
    .replace(/[<>]/g, (c) => (c === "<" ? "&lt;" : "&gt;"))}`;
  const files = parsePlan(rec.text).files;
  const intro = `📋 **Plan** for @${rec.requester}'s request (model \`${rec.model}\`, made on \`${rec.sha.slice(0, 7)}\`):\n\n${quote}`;
  const filesLine = files.length ? `\n\n**Files:** ${files.map((f) => `\`${f}\``).join(", ")}` : "";
  const steps = `${STEPS_START}\n${renderSteps(rec.text, new Set(rec.done))}\n${STEPS_END}`;
  const footer = approvalFooter(rec, opts.command);
  const visible = `${intro}${filesLine}\n\n${steps}\n\n---\n${footer}`;
  return `${opts.head ? `${opts.head}\n` : ""}${planMarker(rec)}\n${capMarkdown(visible, 65_536 - 2_000 - planMarker(rec).length)}`;
}

function approvalFooter(rec: PlanRecord, command: string): string {
  switch (rec.state) {
    case "active":
      return `- [ ] ${APPROVE_LABEL}\n\nTick the box, or write \`/${command} approve\` (followed by corrections, if any), to have the editor model carry it out. \`/${command} plan …\` replaces it; \`/${command} plan drop\` drops it.`;
    case "approved":
      return `- [x] ${APPROVE_LABEL} — approved${rec.by ? ` by @${rec.by}` : ""}. The steps above are ticked as they are done.`;
    case "superseded":
      return "🔁 This plan was replaced by a newer one below; it can no longer be approved.";
    case "dropped":
      return `🗑 This plan was dropped${rec.by ? ` by @${rec.by}` : ""}; it can no longer be approved.`;
  }
}

/**
 * The plan's markdown with its steps as task-list items (pure): a numbered step `1. text` becomes `- [ ] **1.** text`,
 * a bullet step `- text` becomes `- [ ] text`; a plan without a list gets one item for the whole. Same order as
 * {@link parsePlan}'s steps, so step i is the i-th box.
 */
export function renderSteps(text: string, done: ReadonlySet<number>): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const tick = (i: number) => (done.has(i) ? "x" : " ");
  for (const marker of [/^ {0,3}(\d{1,3})[.)]\s+(.*)$/, /^ {0,3}[-*+]\s+(.*)$/]) {
    let n = 0;
    let fence = false;
    const out = lines.map((line) => {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      const m = fence ? null : marker.exec(line);
      if (!m) return line;
      const i = n++;
      return m.length === 3 ? `- [${tick(i)}] **${m[1]}.** ${m[2]}` : `- [${tick(i)}] ${m[1]}`;
    });
    if (n > 0) return out.join("\n").trim();
  }
  return `${text.trim()}\n\n- [${tick(0)}] Carry out the plan above`;
}

/** Whether the plan part of a comment is what the bot wrote (ticks aside): nobody rewrote the plan under its marker. */
export function planIntact(body: string, rec: PlanRecord): boolean {
  const region = (b: string) => {
    const start = b.indexOf(STEPS_START);
    const end = b.indexOf(STEPS_END);
    return start < 0 || end < start
      ? null
      : b
          .slice(start, end)
          .replace(/^- \[[ xX]\]/gm, "- [ ]")
          .replace(/\r\n?/g, "\n");
  };
  const have = region(body);
  return have !== null && have === region(`${STEPS_START}\n${renderSteps(rec.text, new Set())}\n${STEPS_END}`);
}

/** Whether an edit of a plan comment ticked its approve box (it was unticked before and is ticked after). */
export function approvalTicked(before: string, after: string): boolean {
  const was = APPROVE_LINE.exec(before)?.[1];
  const now = APPROVE_LINE.exec(after)?.[1];
  return was === " " && (now === "x" || now === "X");
}

/** The body with its approve box unticked again (a tick by someone who may not approve). */
export function untickApproval(body: string): string {
  return body.replace(APPROVE_LINE, `- [ ] ${APPROVE_LABEL}`);
}

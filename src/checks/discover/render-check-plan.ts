import type { CheckPlan, ExcludedCheck, PlannedCommand } from "./types.js";

/** Left-out items sharing a reason, as one line: the reason once, each distinct item once (its first source). */
export interface ExcludedGroup {
  why: string;
  whats: string[];
}

/**
 * The left-out items grouped by reason, in the order reasons first appear; an item repeated in another job or
 * workflow (the same `echo` in ci.yml and legacy.yml) is listed once.
 */
export function groupExcluded(excluded: readonly ExcludedCheck[]): ExcludedGroup[] {
  const groups = new Map<string, { whats: string[]; seen: Set<string> }>();
  for (const e of excluded) {
    let g = groups.get(e.why);
    if (!g) groups.set(e.why, (g = { whats: [], seen: new Set() }));
    // `what` is the item and, in parentheses at its end, where it was found.
    const item = e.what.replace(/\s\([^()]*\)$/, "");
    if (g.seen.has(item)) continue;
    g.seen.add(item);
    g.whats.push(e.what);
  }
  return [...groups].map(([why, g]) => ({ why, whats: g.whats }));
}

/** How many items of a group a line names before "and N more". */
const NAMED_PER_GROUP = 3;

/** The plan as `aider-bot checks --json` prints it: `cwd` appears only on commands that run in a sub-folder. */
export function checkPlanJson(plan: CheckPlan): object {
  const cmd = (c: PlannedCommand) => ({
    command: c.command,
    source: c.source,
    ...(c.cwd ? { cwd: c.cwd } : {}),
    ...(c.note ? { note: c.note } : {}),
    ...(c.fallback?.command ? { fallback: c.fallback.command } : {}),
  });
  return {
    setup: plan.setup.map(cmd),
    lint: plan.lint.map(cmd),
    test: plan.test.map(cmd),
    toolchain: plan.toolchain,
    image: plan.image ?? null,
    excluded: plan.excluded.map((e) => ({ what: e.what, why: e.why })),
  };
}

/** What the plan says of a command's stand-in. */
const fallbackText = (c: PlannedCommand): string =>
  `if \`${c.fallback!.runner}\` cannot be installed or run here: \`${c.fallback!.command}\` with the sandbox's Python`;

const where = (c: PlannedCommand) => (c.cwd ? ` (in ${c.cwd}/)` : "");

/** The plan for a terminal: one section per kind, each command with its source. */
export function renderCheckPlanText(plan: CheckPlan): string {
  const lines: string[] = [];
  for (const kind of ["setup", "lint", "test"] as const) {
    lines.push(`${kind}:`);
    if (!plan[kind].length) lines.push("  (none)");
    for (const c of plan[kind]) {
      lines.push(`  ${c.command}${where(c)}`, `      from ${c.source}`);
      if (c.note) lines.push(`      ${c.note.replace(/`/g, "")}`);
      if (c.fallback?.command) lines.push(`      ${fallbackText(c).replace(/`/g, "")}`);
    }
  }
  const tools = Object.entries(plan.toolchain);
  if (tools.length) lines.push(`toolchain: ${tools.map(([t, v]) => `${t} ${v}`).join(", ")}`);
  if (plan.image) lines.push(`image: ${plan.image.name} (from ${plan.image.source})`);
  if (plan.excluded.length) {
    lines.push("not run:");
    for (const g of groupExcluded(plan.excluded)) {
      for (const what of g.whats) lines.push(`  ${what.replace(/`/g, "")}`);
      lines.push(`      ${g.why.replace(/`/g, "")}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Inline code that no backtick inside can end. */
export function inlineCode(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ⏎ ");
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${longest ? " " : ""}${flat}${longest ? " " : ""}${fence}`;
}

/**
 * The plan as markdown lists (for `/aider checks` and the status comment); what was left out is one line per reason
 * (at most `max` reasons), naming a few items each.
 */
export function renderCheckPlanMarkdown(plan: CheckPlan, max = 30): string {
  const parts: string[] = [];
  for (const kind of ["setup", "lint", "test"] as const) {
    const items = plan[kind].map(
      (c) =>
        `- ${inlineCode(c.command)}${where(c)} — ${c.source}${c.note ? ` · ${c.note}` : ""}${c.fallback?.command ? ` · ${fallbackText(c)}` : ""}`,
    );
    parts.push(`**${kind}**\n${items.length ? items.join("\n") : "- (none)"}`);
  }
  const tools = Object.entries(plan.toolchain);
  if (tools.length) parts.push(`**toolchain**: ${tools.map(([t, v]) => `${t} ${inlineCode(v)}`).join(", ")}`);
  if (plan.image) parts.push(`**image**: ${inlineCode(plan.image.name)} — ${plan.image.source}`);
  if (plan.excluded.length) {
    const groups = groupExcluded(plan.excluded);
    const shown = groups.slice(0, max).map((g) => {
      const named = g.whats.slice(0, NAMED_PER_GROUP).join(", ");
      const more = g.whats.length > NAMED_PER_GROUP ? ` and ${g.whats.length - NAMED_PER_GROUP} more` : "";
      return `- ${named}${more} — ${g.why}`;
    });
    if (groups.length > max) shown.push(`- … and ${groups.length - max} more reasons`);
    parts.push(`**left out**\n${shown.join("\n")}`);
  }
  return parts.join("\n\n");
}

import type { CheckPlan, PlannedCommand } from "./types.js";

/** The plan as `aider-bot checks --json` prints it: `cwd` appears only on commands that run in a sub-folder. */
export function checkPlanJson(plan: CheckPlan): object {
  const cmd = (c: PlannedCommand) => ({ command: c.command, source: c.source, ...(c.cwd ? { cwd: c.cwd } : {}) });
  return {
    setup: plan.setup.map(cmd),
    lint: plan.lint.map(cmd),
    test: plan.test.map(cmd),
    toolchain: plan.toolchain,
    image: plan.image ?? null,
    excluded: plan.excluded.map((e) => ({ what: e.what, why: e.why })),
  };
}

const where = (c: PlannedCommand) => (c.cwd ? ` (in ${c.cwd}/)` : "");

/** The plan for a terminal: one section per kind, each command with its source. */
export function renderCheckPlanText(plan: CheckPlan): string {
  const lines: string[] = [];
  for (const kind of ["setup", "lint", "test"] as const) {
    lines.push(`${kind}:`);
    if (!plan[kind].length) lines.push("  (none)");
    for (const c of plan[kind]) lines.push(`  ${c.command}${where(c)}`, `      from ${c.source}`);
  }
  const tools = Object.entries(plan.toolchain);
  if (tools.length) lines.push(`toolchain: ${tools.map(([t, v]) => `${t} ${v}`).join(", ")}`);
  if (plan.image) lines.push(`image: ${plan.image.name} (from ${plan.image.source})`);
  if (plan.excluded.length) {
    lines.push("not run:");
    for (const e of plan.excluded) lines.push(`  ${e.what.replace(/`/g, "")}`, `      ${e.why.replace(/`/g, "")}`);
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

/** The plan as markdown lists (for `/aider checks` and the status comment); at most `max` excluded items listed. */
export function renderCheckPlanMarkdown(plan: CheckPlan, max = 30): string {
  const parts: string[] = [];
  for (const kind of ["setup", "lint", "test"] as const) {
    const items = plan[kind].map((c) => `- ${inlineCode(c.command)}${where(c)} — ${c.source}`);
    parts.push(`**${kind}**\n${items.length ? items.join("\n") : "- (none)"}`);
  }
  const tools = Object.entries(plan.toolchain);
  if (tools.length) parts.push(`**toolchain**: ${tools.map(([t, v]) => `${t} ${inlineCode(v)}`).join(", ")}`);
  if (plan.image) parts.push(`**image**: ${inlineCode(plan.image.name)} — ${plan.image.source}`);
  if (plan.excluded.length) {
    const shown = plan.excluded.slice(0, max).map((e) => `- ${e.what} — ${e.why}`);
    if (plan.excluded.length > max) shown.push(`- … and ${plan.excluded.length - max} more`);
    parts.push(`**left out**\n${shown.join("\n")}`);
  }
  return parts.join("\n\n");
}

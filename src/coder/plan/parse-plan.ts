/** One step of a plan: its text (first line and continuation lines) and the files it names. */
export interface PlanStep {
  text: string;
  files: string[];
}

export interface ParsedPlan {
  /** Every file the plan names (the "Files:" line and the steps), in order of first mention. */
  files: string[];
  steps: PlanStep[];
}

/** A backticked path: something with a dot-extension or a slash, no spaces (`src/a.ts`, `Makefile` is not one). */
const BACKTICKED_PATH = /`([^`\s]*(?:\/[^`\s]*|\.[A-Za-z0-9]{1,8}))`/g;
const NUMBERED = /^ {0,3}(\d{1,3})[.)]\s+(.*)$/;
const BULLET = /^ {0,3}[-*+]\s+(.*)$/;

/**
 * The steps and files of an architect's plan (pure): top-level numbered items are the steps (else top-level bullets,
 * else the whole plan is one step); a step's files are the paths it names in backticks, and lines after an item,
 * up to the next one or a blank line followed by unindented text, belong to it.
 * `parsePlan("Files: `a.ts`\n\n1. In `a.ts`, add x.\n2. Test it.")` → steps [{ files: ["a.ts"] }, { files: [] }]
 */
export function parsePlan(text: string): ParsedPlan {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const steps = itemsOf(lines, NUMBERED) ?? itemsOf(lines, BULLET) ?? [lines.join("\n").trim()].filter(Boolean);
  const parsed = steps.map((t) => ({ text: t, files: pathsIn(t) }));
  const files = [...new Set([...pathsIn(text), ...parsed.flatMap((s) => s.files)])];
  return { files, steps: parsed };
}

function itemsOf(lines: readonly string[], marker: RegExp): string[] | null {
  const items: string[][] = [];
  let current: string[] | null = null;
  let blank = false;
  let fence = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : marker.exec(line);
    if (m) {
      current = [m[m.length - 1]!.trim()];
      items.push(current);
      blank = false;
      continue;
    }
    if (!current) continue;
    if (line.trim() === "") {
      blank = true;
      continue;
    }
    // Unindented text after a blank line ends the list (a closing note is not part of the last step).
    if (blank && !fence && /^\S/.test(line)) {
      current = null;
      continue;
    }
    current.push(line.trim());
    blank = false;
  }
  return items.length ? items.map((i) => i.join("\n")) : null;
}

function pathsIn(text: string): string[] {
  return [
    ...new Set(
      [...text.matchAll(BACKTICKED_PATH)]
        .map((m) => m[1]!.replace(/^\.\//, ""))
        .filter((p) => !p.startsWith("/") && !p.includes("..") && !/^\d+(\.\d+)*$/.test(p)),
    ),
  ];
}

/**
 * Which steps are done once the run edited `edited` (pure): a step is done when it names files and every one of them
 * was edited; a step naming no file is done only when the whole run succeeded (`all`), as is every step then.
 */
export function stepsDone(plan: ParsedPlan, edited: ReadonlySet<string>, all: boolean): number[] {
  return plan.steps.flatMap((s, i) => (all || (s.files.length > 0 && s.files.every((f) => edited.has(f))) ? [i] : []));
}

/**
 * The editor's instruction (Aider sends the architect's answer as the editor's message): the plan, and the
 * approver's corrections when there are some, which win over the plan where they disagree.
 */
export function editorMessage(planText: string, corrections?: string): string {
  const fix = corrections?.trim();
  return fix
    ? `${planText.trim()}\n\nCorrections from the maintainer who approved this plan (they win where they disagree with the plan):\n${fix}`
    : planText.trim();
}

/**
 * The replay benchmark's oracle model, pure part: a change to some files (each file's text now and its text wanted)
 * rendered as an answer in one of the bot's edit formats — cleanly, or with one of the mistakes real models make.
 * The syntax follows the formats' own prompts (src/coder/prompts/) and the fence the request chose.
 */
import { structuredPatch } from "diff";
import type { EditFormatName, Fence } from "../../src/edits/types.js";
import { openFence } from "../../src/edits/format-prompts.js";

export interface FileChange {
  path: string;
  /** The file's text as the model sees it now; null when the file does not exist yet. */
  now: string | null;
  /** The text the real commit gives it; null when the commit deletes it. */
  wanted: string | null;
}

/** The mistakes a noisy answer makes, one per answer (see {@link noiseFor}). */
export type Noise = "elided" | "indent" | "stale" | "missing";

/** One hunk of a file's change, in the coordinates of the file with the hunks before it already applied. */
interface Hunk {
  before: string[];
  after: string[];
}

const lines = (text: string): string[] => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));

/**
 * The hunks that turn `now` into `wanted`, each with enough unchanged lines around it (three, more where needed) that
 * its old text occurs exactly once in the file as it is when the hunk is applied (earlier hunks applied first).
 */
export function hunksOf(now: string, wanted: string): Hunk[] {
  const patch = structuredPatch("a", "b", now, wanted, "", "", { context: 3 });
  let text = lines(now);
  const out: Hunk[] = [];
  let shift = 0;
  for (const h of patch.hunks) {
    const body = h.lines.filter((l) => !l.startsWith("\\"));
    let before = body.filter((l) => !l.startsWith("+")).map((l) => l.slice(1));
    let after = body.filter((l) => !l.startsWith("-")).map((l) => l.slice(1));
    let start = h.oldStart - 1 + shift + (h.oldLines === 0 ? 1 : 0);
    let end = start + before.length;
    // Widen by one line each side until the old text is unique (an empty old text is an insertion: give it context).
    while ((before.length === 0 || count(text, before) !== 1) && (start > 0 || end < text.length)) {
      if (start > 0) {
        start--;
        before = [text[start]!, ...before];
        after = [text[start]!, ...after];
      }
      if (end < text.length) {
        before = [...before, text[end]!];
        after = [...after, text[end]!];
        end++;
      }
    }
    out.push({ before, after });
    text = [...text.slice(0, start), ...after, ...text.slice(end)];
    shift += after.length - before.length;
  }
  return out;
}

function count(text: string[], block: string[]): number {
  let n = 0;
  for (let i = 0; i + block.length <= text.length; i++) if (block.every((l, j) => text[i + j] === l)) n++;
  return n;
}

const langOf = (path: string): string =>
  ({ py: "python", js: "javascript", ts: "typescript", go: "go", rs: "rust", c: "c", h: "c", pm: "perl", pl: "perl" })[
    path.split(".").pop() ?? ""
  ] ?? "";

const join = (ls: string[]) => (ls.length ? `${ls.join("\n")}\n` : "");

function searchReplace(format: "diff" | "diff-fenced", fence: Fence, path: string, h: Hunk): string {
  const head =
    format === "diff" ? `${path}\n${openFence(fence, langOf(path))}\n` : `${openFence(fence, langOf(path))}\n${path}\n`;
  return `${head}<<<<<<< SEARCH\n${join(h.before)}=======\n${join(h.after)}>>>>>>> REPLACE\n${fence[1]}\n`;
}

/** Unified-diff body lines of a hunk: the common head and tail as context, the middle as removed and added lines. */
function hunkLines(h: Hunk): string[] {
  let head = 0;
  while (head < h.before.length && head < h.after.length && h.before[head] === h.after[head]) head++;
  let tail = 0;
  while (
    tail < h.before.length - head &&
    tail < h.after.length - head &&
    h.before[h.before.length - 1 - tail] === h.after[h.after.length - 1 - tail]
  )
    tail++;
  return [
    ...h.before.slice(0, head).map((l) => ` ${l}`),
    ...h.before.slice(head, h.before.length - tail).map((l) => `-${l}`),
    ...h.after.slice(head, h.after.length - tail).map((l) => `+${l}`),
    ...h.before.slice(h.before.length - tail).map((l) => ` ${l}`),
  ];
}

interface Rendered {
  path: string;
  now: string | null;
  wanted: string | null;
  hunks: Hunk[];
}

/** Each file's hunks (a new file is one hunk from nothing, a deleted one a hunk to nothing). */
function plan(changes: readonly FileChange[]): Rendered[] {
  return changes
    .filter((c) => c.now !== c.wanted)
    .map((c) => ({
      ...c,
      hunks:
        c.now === null
          ? [{ before: [], after: lines(c.wanted ?? "") }]
          : c.wanted === null
            ? [{ before: lines(c.now), after: [] }]
            : hunksOf(c.now, c.wanted),
    }));
}

function renderPlan(format: EditFormatName, fence: Fence, files: Rendered[]): string {
  const parts: string[] = [];
  if (format === "patch") {
    const body = ["*** Begin Patch"];
    for (const f of files) {
      if (f.now === null) body.push(`*** Add File: ${f.path}`, ...f.hunks[0]!.after.map((l) => `+${l}`));
      else if (f.wanted === null) body.push(`*** Delete File: ${f.path}`);
      else {
        body.push(`*** Update File: ${f.path}`);
        for (const h of f.hunks) body.push("@@", ...hunkLines(h));
      }
    }
    body.push("*** End Patch");
    return `Here is the change.\n\n${body.join("\n")}\n`;
  }
  for (const f of files) {
    if (format === "whole") {
      if (f.wanted === null) continue;
      const text = f.hunks.length && f.now !== null ? applyHunks(f.now, f.hunks) : (f.wanted ?? "");
      parts.push(
        `${f.path}\n${openFence(fence, langOf(f.path))}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence[1]}\n`,
      );
    } else if (format === "udiff") {
      const header = `--- ${f.now === null ? "/dev/null" : f.path}\n+++ ${f.path}\n`;
      const hunks = f.hunks.map((h) => `@@ @@\n${join(f.now === null ? h.after.map((l) => `+${l}`) : hunkLines(h))}`);
      parts.push(`${openFence(fence, "diff")}\n${header}${hunks.join("")}${fence[1]}\n`);
    } else {
      for (const h of f.hunks) parts.push(searchReplace(format, fence, f.path, h));
    }
  }
  return `Here is the change.\n\n${parts.join("\n")}`;
}

/** The text of `now` with the hunks applied in order (each found by its old text). */
function applyHunks(now: string, hunks: Hunk[]): string {
  let text = lines(now);
  for (const h of hunks) {
    let at = -1;
    for (let i = 0; i + h.before.length <= text.length; i++)
      if (h.before.every((l, j) => text[i + j] === l)) {
        at = i;
        break;
      }
    if (at < 0) continue;
    text = [...text.slice(0, at), ...h.after, ...text.slice(at + h.before.length)];
  }
  return join(text);
}

/** A clean answer: every change, exactly. Empty when nothing is left to change. */
export function renderAnswer(format: EditFormatName, fence: Fence, changes: readonly FileChange[]): string {
  const files = plan(changes);
  if (files.length === 0) return "";
  return renderPlan(format, fence, files);
}

/** The mistakes a format's answers can make; the first that applies to the change is used (see {@link noiseFor}). */
const NOISES: Record<EditFormatName, Noise[]> = {
  diff: ["elided", "indent", "stale", "missing"],
  "diff-fenced": ["elided", "indent", "stale", "missing"],
  udiff: ["indent", "stale", "missing"],
  patch: ["indent", "stale", "missing"],
  whole: ["missing", "elided"],
};

/**
 * The noise of a case's noisy answer: the formats' kinds taken in turn by `seed` (the case's index), skipping those
 * that cannot apply to this change (e.g. "missing" needs two hunks), so the cases spread over every kind.
 */
export function noiseFor(format: EditFormatName, changes: readonly FileChange[], seed: number): Noise | null {
  const files = plan(changes);
  const kinds = NOISES[format];
  for (let i = 0; i < kinds.length; i++) {
    const kind = kinds[(seed + i) % kinds.length]!;
    if (noisyPlan(format, files, kind)) return kind;
  }
  return null;
}

/** A noisy first answer: the change with one mistake of kind `noise`, or the clean answer when it cannot apply. */
export function renderNoisyAnswer(
  format: EditFormatName,
  fence: Fence,
  changes: readonly FileChange[],
  noise: Noise,
): string {
  const files = plan(changes);
  if (files.length === 0) return "";
  const noisy = noisyPlan(format, files, noise);
  if (!noisy) return renderPlan(format, fence, files);
  if (noisy.text) return noisy.text(fence);
  return renderPlan(format, fence, noisy.files!);
}

type NoisyPlan = { files?: Rendered[]; text?: (fence: Fence) => string };

/** The edited plan for a noise, or null when this change gives it nothing to work on. */
function noisyPlan(format: EditFormatName, files: Rendered[], noise: Noise): NoisyPlan | null {
  const updates = files.filter((f) => f.now !== null && f.wanted !== null);
  const replaceHunk = (f: Rendered, i: number, h: Hunk): Rendered[] =>
    files.map((g) => (g === f ? { ...g, hunks: g.hunks.map((x, j) => (j === i ? h : x)) } : g));
  switch (noise) {
    case "missing": {
      // Leave out the last hunk of code (documentation is no test's to miss): the tests find what is missing.
      const hunks = files.reduce((n, f) => n + f.hunks.length, 0);
      const last = files.filter((f) => !isDocs(f.path)).at(-1);
      if (hunks < 2 || !last) return null;
      if (last.hunks.length === 1) return { files: files.filter((f) => f !== last) };
      return { files: files.map((f) => (f === last ? { ...f, hunks: f.hunks.slice(0, -1) } : f)) };
    }
    case "stale": {
      // The old text quotes a line as it was before some earlier edit: one of its lines with a word changed.
      for (const f of updates)
        for (const [i, h] of f.hunks.entries()) {
          const worded = h.before.findIndex((l) => /[A-Za-z]{3,}/.test(l));
          const at = worded >= 0 ? worded : h.before.findIndex((l) => l.trim() !== "");
          if (at < 0) continue;
          const line = h.before[at]!;
          const stale = worded >= 0 ? line.replace(/[A-Za-z]{3,}/, (w) => `${w}Old`) : `${line} // stale`;
          const before = h.before.map((l, j) => (j === at ? stale : l));
          // In the unified formats the stale line is context (kept in the new text too), as a model writes it.
          const after = format === "udiff" || format === "patch" ? mapContext(h, at, stale) : h.after;
          return { files: replaceHunk(f, i, { before, after }) };
        }
      return null;
    }
    case "indent": {
      // Every line of one hunk outdented by the hunk's common indentation (the model dropped a level).
      for (const f of updates)
        for (const [i, h] of f.hunks.entries()) {
          const all = [...h.before, ...h.after].filter((l) => l.trim() !== "");
          const common = Math.min(...all.map((l) => /^[ \t]*/.exec(l)![0].length));
          if (!all.length || common < 2 || h.before.length < 2) continue;
          const cut = (l: string) => (l.trim() === "" ? l : l.slice(common));
          return { files: replaceHunk(f, i, { before: h.before.map(cut), after: h.after.map(cut) }) };
        }
      return null;
    }
    case "elided": {
      if (format === "whole") {
        // A listing that stops with "rest unchanged" after the first changed hunk: the engine refuses such a file.
        for (const f of updates) {
          const full = lines(applyHunks(f.now!, f.hunks));
          if (full.length < 12) continue;
          const keep = Math.ceil(full.length / 2);
          const marker = commentFor(f.path, "... rest of the file unchanged ...");
          const text = join([...full.slice(0, keep), marker]);
          const others = files.filter((g) => g !== f);
          return {
            text: (fence) =>
              `${renderPlan(format, fence, others)}\n${f.path}\n${openFence(fence, langOf(f.path))}\n${text}${fence[1]}\n`,
          };
        }
        return null;
      }
      // SEARCH/REPLACE with a run of unchanged lines in the middle written as "..." on both sides.
      for (const f of updates)
        for (const [i, h] of f.hunks.entries()) {
          let head = 0;
          while (head < h.before.length && head < h.after.length && h.before[head] === h.after[head]) head++;
          if (head < 3) continue;
          const cut = (ls: string[]) => [ls[0]!, "...", ...ls.slice(head - 1)];
          return { files: replaceHunk(f, i, { before: cut(h.before), after: cut(h.after) }) };
        }
      return null;
    }
  }
}

/** `after` with the line matching `before[at]` (a context line) replaced by `stale`, when it is context. */
function mapContext(h: Hunk, at: number, stale: string): string[] {
  let head = 0;
  while (head < h.before.length && head < h.after.length && h.before[head] === h.after[head]) head++;
  if (at < head) return h.after.map((l, j) => (j === at ? stale : l));
  const fromEnd = h.before.length - 1 - at;
  const j = h.after.length - 1 - fromEnd;
  if (j >= 0 && h.after[j] === h.before[at]) return h.after.map((l, k) => (k === j ? stale : l));
  return h.after;
}

/** Documentation and type declarations: files whose missing hunk no test would notice. */
const isDocs = (path: string) =>
  /\.(md|rst|txt|d\.ts|d\.mts)$|(^|\/)(changelog|changes|readme|history)[^/]*$/i.test(path);

function commentFor(path: string, text: string): string {
  return /\.(py|pl|pm|rb|sh)$/.test(path) ? `# ${text}` : `// ${text}`;
}

#!/usr/bin/env node
// Rewrite citations of documents that are not in this repository (the Aider research notes, the design notes, the
// stack notes) in src/ and test/ into citations of docs/behaviour.md and docs/architecture.md sections.
//
//   node scripts/rewrite-doc-refs.mjs            rewrite in place, print every change
//   node scripts/rewrite-doc-refs.mjs --check    change nothing; exit 1 when an outside citation remains
//   --root DIR                                   the repository to work on (default: this script's repository)
//
// Idempotent: a rewritten citation names docs/… only, so a second run finds nothing to do.
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import console from "node:console";
import process from "node:process";

const BEHAVIOUR = "docs/behaviour.md";
const ARCHITECTURE = "docs/architecture.md";

// The file names are assembled so this script does not cite them itself.
const AIDER_DOC = ["AIDER", "md"].join(".");
const DESIGN_DOC = ["DESIGN", "md"].join(".");
const STACK_DOC = ["STACK", "md"].join(".");

/** Numbered sections of the Aider notes → behaviour.md anchors. A qualified key ("0 step 4") wins over its number. */
const SECTIONS = {
  "0": "the-edit-loop",
  "0 step 4": "file-mentions",
  "0 steps 9–11": "checks",
  "0 preproc": "file-mentions",
  "1": "applying-edits",
  "1.1": "fences",
  "1.2": "applying-edits",
  "1.3": "path-safety",
  "1.4": "path-safety",
  "1.5": "applying-edits",
  "2": "edit-formats",
  "2.1": "edit-blocks",
  "2.1.1": "edit-blocks",
  "2.1.2": "rungs",
  "2.1.3": "failed-edits",
  "2.1.4": "edit-blocks",
  "2.2": "diff-fenced",
  "2.3": "whole-files",
  "2.4": "unified-diffs",
  "2.5": "v4a-patches",
  "2.6": "the-edit-loop",
  "3": "reflection",
  "3 trigger 1": "files-the-model-asks-for",
  "3 triggers 4–5": "failed-checks",
  "4": "checks",
  "4.4": "failed-checks",
  "5": "repo-map",
  "5.2": "fitting",
  "5.3": "tags",
  "5.4": "ranking",
  "5.5": "fitting",
  "5.6": "file-mentions",
  "5.7": "cache",
  "6": "commits",
  "8": "aider-bugs-we-avoid",
  "9": "where-we-differ-from-aider",
};

/** The lettered decisions (A.1 … A.18) → their sections under "Where we differ from Aider". */
const DECISIONS = {
  1: "prose-is-not-a-filename",
  2: "divider-lines-inside-content",
  3: "shell-fences-by-exact-tag",
  4: "empty-files",
  5: "newlines-and-line-endings",
  6: "indentation-never-corrupts",
  7: "ambiguous-matches-are-refused",
  8: "deterministic-cross-file-retry",
  9: "extra-tolerant-rungs",
  10: "answers-without-edits-are-reported",
  11: "unified-diff-fixes",
  12: "whole-file-fixes",
  13: "v4a-patch-fixes",
  14: "files-the-model-asks-for",
  15: "syntax-checks-and-error-locations",
  16: "repo-map-differences",
  17: "one-commit-per-run",
  18: "paths-stay-inside-the-checkout",
};

/** Numbered sections of the design notes → architecture.md anchors. */
const DESIGN_SECTIONS = { 1: "request-path", 2: "layout", 3: "stack", 4: "layout", 5: "testing", 6: "layout" };

const cite = (doc, anchor) => `${doc}#${anchor}`;

function sectionAnchor(number, qualifier) {
  if (qualifier) {
    const key = `${number} ${qualifier.replace(/-/g, "–")}`;
    if (SECTIONS[key]) return SECTIONS[key];
  }
  const parts = number.split(".");
  for (let n = parts.length; n > 0; n--) {
    const anchor = SECTIONS[parts.slice(0, n).join(".")];
    if (anchor) return anchor;
  }
  return "where-we-differ-from-aider";
}

function decisionAnchor(n) {
  return DECISIONS[Number(n)] ?? "where-we-differ-from-aider";
}

// One reference to the Aider notes, with or without the document's name before it.
const BUG = String.raw`§?8\.2 #(\d+)`;
const RANGE = String.raw`A\.(\d+)[–-]A\.(\d+)`;
const DECISION = String.raw`A\.(\d+)`;
const SECTION = String.raw`§\s?(\d+(?:\.\d+)*)(?:\s+(steps?\s+\d+(?:[–-]\d+)?[a-z]?|triggers?\s+\d+(?:[–-]\d+)?|preproc))?`;

const AIDER_NAME = AIDER_DOC.replace(".", "\\.");
const RULES = [
  // The design and stack notes first: their "§4" is not a section of the Aider notes.
  [new RegExp(`\\b${DESIGN_DOC.replace(".", "\\.")}(?:\\s+§\\s?(\\d+)(?:\\.\\d+)*)?`, "g"), (_m, n) => cite(ARCHITECTURE, DESIGN_SECTIONS[Number(n)] ?? "layout")],
  [new RegExp(`\\b${STACK_DOC.replace(".", "\\.")}(?:\\s+"[^"\\n]*")?`, "g"), () => cite(ARCHITECTURE, "stack")],
  // The notes' section A as a whole, and the document named with no section.
  [new RegExp(`${AIDER_NAME} section A\\b`, "g"), () => cite(BEHAVIOUR, "where-we-differ-from-aider")],
  [new RegExp(`(?:${AIDER_NAME}:?\\s+)?${BUG}`, "g"), (_m, n) => `${cite(BEHAVIOUR, "aider-bugs-we-avoid")} (#${n})`],
  [new RegExp(`(?:${AIDER_NAME}:?\\s+)?${RANGE}\\b`, "g"), () => cite(BEHAVIOUR, "where-we-differ-from-aider")],
  [new RegExp(`(?:${AIDER_NAME}:?\\s+)?\\b${DECISION}\\b(?![.\\d])`, "g"), (_m, n) => cite(BEHAVIOUR, decisionAnchor(n))],
  [new RegExp(`(?:${AIDER_NAME}:?\\s+)?${SECTION}`, "g"), (_m, number, qualifier) => cite(BEHAVIOUR, sectionAnchor(number, qualifier && qualifier.replace(/\s+/g, " ")))],
  [new RegExp(`${AIDER_NAME}\\s+(\\d+(?:\\.\\d+)*)\\b(?![.\\d])`, "g"), (_m, number) => cite(BEHAVIOUR, sectionAnchor(number))],
  [new RegExp(`\\b${AIDER_NAME}\\b`, "g"), () => BEHAVIOUR],
];

// The same citation twice in a row ("#rungs, #rungs", "#checks/#checks") is said once.
const REPEATED = /((?:docs\/[\w-]+\.md)#[\w-]+)(?:(?:\s*,\s*|\/|\s+and\s+)\1)+(?![\w-])/g;

/**
 * A comment that names the Aider notes at the end of one line and the section at the start of the next
 * ("… AIDER.md\n * §1.5") loses the name on the first line: the section alone is rewritten into a full citation.
 */
export function joinSplitCitations(text) {
  return text.replace(new RegExp(`[ \\t]*\\b${AIDER_NAME}(?=\\r?\\n[ \\t]*(?:\\*|//)[ \\t]*(?:§|A\\.\\d|8\\.2 #))`, "g"), "");
}

/** The line with every outside citation replaced. */
export function rewriteLine(line) {
  let out = line;
  for (const [pattern, replace] of RULES) out = out.replace(pattern, replace);
  return out.replace(REPEATED, "$1");
}

/** What still cites a document outside the repository (empty when nothing does). */
export function outsideReferences(line) {
  const found = [];
  const patterns = [new RegExp(`\\b(?:${AIDER_NAME}|${DESIGN_DOC.replace(".", "\\.")}|${STACK_DOC.replace(".", "\\.")})\\b`, "g"), /§\s?\d/g, /\bA\.\d+\b(?![.\d])/g, /\b8\.2 #\d+/g];
  for (const p of patterns) for (const m of line.matchAll(p)) found.push(m[0]);
  return found;
}

const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;

async function* sourceFiles(dir) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (err.code === "ENOENT") return; // a repository without test/ (or src/) has nothing there to rewrite
    throw err;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "fixtures") yield* sourceFiles(full);
    } else if (SOURCE.test(entry.name)) yield full;
  }
}

/** The anchors a Markdown file defines: GitHub's heading slugs and explicit `<a id>`s. */
function anchorsOf(markdown) {
  const anchors = new Set();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)) {
    anchors.add(
      m[1]
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-"),
    );
  }
  for (const m of markdown.matchAll(/<a id="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

async function main(argv) {
  const check = argv.includes("--check");
  const rootAt = argv.indexOf("--root");
  const root = rootAt >= 0 ? path.resolve(argv[rootAt + 1]) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

  let changes = 0;
  let remaining = 0;
  const cited = new Set();
  for (const top of ["src", "test"]) {
    for await (const file of sourceFiles(path.join(root, top))) {
      const text = await readFile(file, "utf8");
      const lines = joinSplitCitations(text).split("\n");
      const before = text.split("\n");
      const rel = path.relative(root, file);
      let changed = false;
      lines.forEach((line, i) => {
        const next = rewriteLine(line);
        const old = before[i];
        for (const m of next.matchAll(/docs\/behaviour\.md#([\w-]+)/g)) cited.add(m[1]);
        if (next !== old) {
          changes += 1;
          changed = true;
          console.log(`${rel}:${i + 1}\n  - ${old.trim()}\n  + ${next.trim()}`);
        }
        const left = outsideReferences(check ? old : next);
        if (left.length > 0) {
          remaining += 1;
          if (check) console.log(`${rel}:${i + 1}: cites ${left.join(", ")}`);
          else console.log(`${rel}:${i + 1}: still cites ${left.join(", ")}: rewrite it by hand`);
        }
        lines[i] = next;
      });
      if (changed && !check) await writeFile(file, lines.join("\n"));
    }
  }

  // A citation of a section behaviour.md does not have is a broken link: say so (the table above needs fixing).
  let behaviour = null;
  try {
    behaviour = await readFile(path.join(root, BEHAVIOUR), "utf8");
  } catch (err) {
    if (err.code !== "ENOENT") throw err; // no behaviour doc yet: nothing to verify the anchors against
  }
  if (behaviour !== null) {
    const known = anchorsOf(behaviour);
    const missing = [...cited].filter((a) => !known.has(a));
    if (missing.length > 0) console.log(`${BEHAVIOUR} has no section for: ${missing.map((a) => `#${a}`).join(", ")}`);
  }

  if (check) {
    console.log(
      remaining === 0 ? "No citation of a document outside the repository." : `${remaining} line(s) cite documents outside the repository: run node scripts/rewrite-doc-refs.mjs to rewrite them.`,
    );
    return remaining === 0 ? 0 : 1;
  }
  console.log(`${changes} line(s) rewritten${remaining ? `, ${remaining} left to rewrite by hand` : ""}.`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}

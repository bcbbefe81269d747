import type { ApplyOutcome, Edit, EditFailure, FileSnapshot, ParseResult } from "../../../src/edits/types.js";
import type { EditRoundResult } from "../../../src/coder/coder-deps.js";

/**
 * A tiny stand-in for the edit registry: SEARCH/REPLACE blocks with the path on the line before the fence, exact
 * matching only. Enough to drive the loop; the real engine has its own tests.
 */
const BLOCK = /^(\S+)\n`{3,4}[a-z]*\n<<<<<<< SEARCH\n([\s\S]*?)=======\n([\s\S]*?)>>>>>>> REPLACE\n`{3,4}$/gm;

export function fakeParse(text: string): ParseResult {
  const edits: Edit[] = [];
  for (const m of text.matchAll(BLOCK))
    edits.push({ kind: "replace", path: m[1] ?? "", search: m[2] ?? "", replace: m[3] ?? "" });
  const failures: EditFailure[] = text.includes("MALFORMED")
    ? [{ path: "", reason: "malformed", message: "The answer does not follow the format." }]
    : [];
  return { edits, shell: /```bash\n/.test(text) ? ["npm test"] : [], failures };
}

export function fakeParseAndApply(text: string, snapshot: FileSnapshot): EditRoundResult {
  const parse = fakeParse(text);
  const outcome: ApplyOutcome = { changes: new Map(), applied: [], failed: [] };
  const current = new Map(snapshot.files);
  for (const edit of parse.edits) {
    if (edit.kind !== "replace") continue;
    const content = current.get(edit.path);
    if (edit.search === "" && content === undefined) {
      current.set(edit.path, edit.replace);
      outcome.changes.set(edit.path, edit.replace);
      outcome.applied.push({ path: edit.path, rung: "create", edit });
      continue;
    }
    if (content === undefined || !content.includes(edit.search)) {
      outcome.failed.push({ path: edit.path, reason: "no-match", message: `SEARCH not found in ${edit.path}`, edit });
      continue;
    }
    const next = content.replace(edit.search, edit.replace);
    current.set(edit.path, next);
    outcome.changes.set(edit.path, next);
    outcome.applied.push({ path: edit.path, rung: "exact", edit });
  }
  if (parse.edits.length === 0 && parse.failures.length === 0) {
    outcome.failed.push({ path: "", reason: "no-edits", message: "no edits" });
  }
  const all = [...parse.failures, ...outcome.failed];
  const reflection = all.length ? `ENGINE REFLECTION:\n${all.map((f) => f.message).join("\n")}` : null;
  return { parse, outcome, reflection };
}

/** Render a SEARCH/REPLACE block as the fake parser reads it. */
export function block(path: string, search: string, replace: string): string {
  return `${path}\n\`\`\`ts\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n\`\`\``;
}

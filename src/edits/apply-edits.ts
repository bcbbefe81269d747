import { answerLimitFailure } from "./answer-limits.js";
import { detectShape, restoreShape, toLf, type TextShape } from "./line-endings.js";
import { checkPathPolicy, DEFAULT_PROTECTED_PATHS, normalizeEditPath } from "./path-policy.js";
import type { ApplyOptions, ApplyOutcome, Edit, EditFailure, EditFormat, FileChanges, FileSnapshot } from "./types.js";

/** The paths an edit touches (Move touches two). */
export function editPaths(edit: Edit): string[] {
  return edit.kind === "patch-update" && edit.moveTo ? [edit.path, edit.moveTo] : [edit.path];
}

/**
 * Apply a format's edits safely: paths normalised and checked against the path policy and the workspace's
 * problems (never passed on when refused), files handed to the format as LF text, and every existing file's line
 * endings, final-newline state and BOM restored on the way out (docs/behaviour.md#newlines-and-line-endings, docs/behaviour.md#paths-stay-inside-the-checkout). An answer that would create
 * more files or write more bytes than the caps allow changes nothing (see {@link answerLimitFailure}).
 */
export function applyEdits(
  format: Pick<EditFormat, "apply">,
  snapshot: FileSnapshot,
  edits: readonly Edit[],
  options: ApplyOptions,
): ApplyOutcome {
  const protectedPaths = options.protectedPaths ?? DEFAULT_PROTECTED_PATHS;
  const failed: EditFailure[] = [];
  const safe: Edit[] = [];
  for (const raw of edits) {
    const edit = normalizeEdit(raw);
    const problem = editPaths(edit)
      .map((p) => checkPathPolicy(p, protectedPaths) ?? snapshot.problems?.get(p) ?? null)
      .find((p) => p !== null);
    if (problem) failed.push({ path: edit.path, reason: problem.reason, message: problem.message, edit });
    else safe.push(edit);
  }
  const shapes = new Map<string, TextShape>();
  const lfFiles = new Map<string, string>();
  for (const [path, content] of snapshot.files) {
    if (snapshot.problems?.has(path)) continue;
    shapes.set(path, detectShape(content));
    lfFiles.set(path, toLf(content));
  }
  const chatFiles = options.chatFiles.filter(
    (p) => !snapshot.problems?.has(p) && checkPathPolicy(p, protectedPaths) === null,
  );
  const outcome = format.apply({ files: lfFiles }, safe, { ...options, chatFiles });
  const changes: FileChanges = new Map();
  const refused = new Set<string>();
  let newShape: TextShape | null = null;
  for (const [path, content] of outcome.changes) {
    // Defence in depth: a format must never produce a change for a refused path (e.g. via cross-file retry).
    if (checkPathPolicy(path, protectedPaths) || snapshot.problems?.has(path)) {
      refused.add(path);
      continue;
    }
    if (content === null) {
      if (snapshot.files.has(path)) changes.set(path, null);
      continue;
    }
    const restored = restoreShape(content, shapes.get(path) ?? (newShape ??= newFileShape(shapes)));
    if (restored !== snapshot.files.get(path)) changes.set(path, restored);
  }
  const applied = outcome.applied.filter((a) => !refused.has(a.path));
  for (const a of outcome.applied) {
    if (!refused.has(a.path)) continue;
    const problem = checkPathPolicy(a.path, protectedPaths) ?? snapshot.problems?.get(a.path);
    failed.push({
      path: a.path,
      reason: problem?.reason ?? "unsafe-path",
      message: problem?.message ?? `Refused to edit \`${a.path}\`.`,
      edit: a.edit,
    });
  }
  const overLimit = answerLimitFailure(changes, snapshot.files, options);
  if (overLimit) return { changes: new Map(), applied: [], failed: [...failed, ...outcome.failed, overLimit] };
  return { changes, applied, failed: [...failed, ...outcome.failed] };
}

function normalizeEdit(edit: Edit): Edit {
  const path = normalizeEditPath(edit.path);
  if (edit.kind === "patch-update" && edit.moveTo) return { ...edit, path, moveTo: normalizeEditPath(edit.moveTo) };
  return { ...edit, path };
}

/** New files follow the repository's majority line ending, with a final newline. */
function newFileShape(shapes: Map<string, TextShape>): TextShape {
  let crlf = 0;
  for (const s of shapes.values()) if (s.eol === "\r\n") crlf++;
  return { eol: crlf * 2 > shapes.size && shapes.size > 0 ? "\r\n" : "\n", finalNewline: true, bom: false };
}

import type { EditFailure, Fence } from "../edits/types.js";
import type { CoderDeps } from "./coder-deps.js";
import type { CoderOptions } from "./types.js";

export interface ApplyReplyInput {
  deps: CoderDeps;
  options: CoderOptions;
  text: string;
  fence: Fence;
  chatFiles: readonly string[];
  repoFiles: readonly string[];
  /** Files added to the chat because this reply named them: the model has not seen them, so its edits to them are dropped. */
  withheld: ReadonlySet<string>;
}

export interface ApplyReplyResult {
  /** Paths written (changed or deleted). */
  written: string[];
  /** What each written path held before this reply's edits (null: it did not exist). */
  before: Map<string, string | null>;
  deleted: string[];
  failures: EditFailure[];
  /** The engine's LLM-facing text for the failures, or null. */
  reflection: string | null;
  shell: string[];
  /** The answer held no edits at all (and nothing malformed). */
  noEdits: boolean;
}

function failureKey(f: EditFailure): string {
  return `${f.path}\u0000${f.reason}\u0000${f.message}`;
}

/**
 * Parse the reply, read a snapshot of the paths it touches plus the chat files, apply, and write the changes.
 * Successfully applied edits are written even when other edits of the same reply failed (partial success,
 * docs/behaviour.md#applying-edits); edits to `withheld` files are dropped (docs/behaviour.md#files-the-model-asks-for / docs/behaviour.md#aider-bugs-we-avoid (#22): the rest of the reply is still applied).
 */
export async function applyReply(input: ApplyReplyInput): Promise<ApplyReplyResult> {
  const { deps, options, text, fence, chatFiles } = input;
  const format = options.editFormat;
  const parsed = deps.parse(format, text, { fence, chatFiles, repoFiles: input.repoFiles });
  const paths = new Set(chatFiles);
  for (const edit of parsed.edits) {
    paths.add(edit.path);
    if (edit.kind === "patch-update" && edit.moveTo) paths.add(edit.moveTo);
  }
  const snapshot = await deps.workspace.read([...paths]);
  const round = deps.parseAndApply(format, text, snapshot, {
    chatFiles,
    // Read-only files are reference material: editing them is refused like a protected path.
    protectedPaths: [...options.protectedPaths, ...options.readFiles],
    fence,
  });

  const seen = new Set<string>();
  const failures = [...round.parse.failures, ...round.outcome.failed].filter((f) => {
    const key = failureKey(f);
    if (seen.has(key) || input.withheld.has(f.path)) return false;
    seen.add(key);
    return true;
  });
  const changes = new Map([...round.outcome.changes].filter(([path]) => !input.withheld.has(path)));
  const noEdits = round.parse.edits.length === 0 && failures.every((f) => f.reason === "no-edits");
  const realFailures = failures.filter((f) => f.reason !== "no-edits");

  // A setup command started early that reads one of these is killed, and its end awaited, before they change.
  if (changes.size > 0)
    await deps.earlySetup?.beforeWrite(
      [...changes].map(([path, content]) => ({
        path,
        ...(content === null ? { deleted: true } : snapshot.files.has(path) ? {} : { created: true }),
      })),
    );
  try {
    if (changes.size > 0) await deps.workspace.write(changes);
  } catch (err) {
    // The workspace re-checks path safety at write time; report it like an edit failure instead of crashing.
    const message = err instanceof Error ? err.message : String(err);
    const failure: EditFailure = { path: [...changes.keys()].join(", "), reason: "unsafe-path", message };
    return {
      written: [],
      before: new Map(),
      deleted: [],
      failures: [...realFailures, failure],
      reflection: message,
      shell: round.parse.shell,
      noEdits: false,
    };
  }

  return {
    written: [...changes.keys()],
    before: new Map([...changes.keys()].map((path) => [path, snapshot.files.get(path) ?? null])),
    deleted: [...changes].filter(([, content]) => content === null).map(([path]) => path),
    failures: realFailures,
    reflection: realFailures.length > 0 ? (round.reflection ?? realFailures.map((f) => f.message).join("\n")) : null,
    shell: round.parse.shell,
    noEdits,
  };
}

import path from "node:path";
import { renderCheckReflection } from "../checks/render-check-reflection.js";
import { runCheckCommand } from "../checks/run-check-command.js";
import { syntaxCheck, warmGrammarFor, warmGrammarsOf } from "../checks/syntax-check.js";
import type { CoderDeps, RepoMapRequest } from "../coder/coder-deps.js";
import type { TranscriptSink } from "../coder/transcript/transcript-event.js";
import type { CoderProgress } from "../coder/types.js";
import { getEditFormat, parseAndApply } from "../edits/registry.js";
import type { Exec } from "../exec/types.js";
import { generateCommitMessage } from "../coder/generate-commit-message.js";
import type { LlmClient } from "../llm/types.js";
import { buildRepoMap, buildRepoMapFromObjects } from "../repomap/build-repo-map.js";
import { warmTagTools } from "../repomap/extract-tags.js";
import { hasTagCache } from "../repomap/tag-cache.js";
import { languageForGitHubName } from "../treesitter/languages.js";
import { createConfinedReader } from "../workspace/confined-reader.js";
import { createFsWorkspace } from "../workspace/create-fs-workspace.js";
import type { Workspace } from "../workspace/types.js";
import { watchPending, type PendingCheckout } from "../workspace/pending-checkout.js";
import { readBlobs } from "../workspace/read-blobs.js";
import type { Git } from "../workspace/create-git.js";

// What a spare job process starts before its job (app/ may not reach checks/ itself).
export { warmSyntaxCheck } from "../checks/syntax-check.js";

/**
 * run-job's `warmWhileCloning` for the App's and the Action's runs, for the repository's main language: its grammar,
 * so the first syntax check (usually of a file in that language) finds it loaded; and, on the repository's first run
 * (no tag cache in `mapCacheDir`), the map's parser and compiled tag query, warmed on a few lines of that language,
 * so a cold map does not start by compiling (20–90 ms of CPU for the query, and the grammar's first runs). With a
 * tag cache the map parses only what changed, and that work would only compete with the clone. A failure is only
 * logged: the check and the map meet it again and report it. Settles when all is done (tests).
 */
export function warmGrammarWhileCloning(
  log: { debug(obj: object, msg: string): void },
  mapCacheDir?: (req: { owner: string; repo: string }) => string,
): (req: { language?: string; owner: string; repo: string }) => Promise<void> {
  return (req) => {
    const id = languageForGitHubName(req.language);
    const coldMap = !!id && !!mapCacheDir && !hasTagCache(mapCacheDir(req));
    return Promise.all([warmGrammarFor(req.language), id && coldMap ? warmTagTools(id) : undefined]).then(
      () => undefined,
      (error: unknown) => log.debug({ err: error }, "grammar warm-up failed"),
    );
  };
}

export interface CoderDepsInput {
  root: string;
  exec: Exec;
  /** Runs the repository's lint/test/setup commands (a sandboxed exec in the app); defaults to `exec`. */
  checkExec?: Exec;
  git: Git;
  llm: LlmClient;
  /** Model for commit messages (the weak model, else the main one); none → deterministic subjects. */
  commitModel?: string;
  protectedPaths: readonly string[];
  cacheDir?: string;
  /**
   * Key the map's tag cache by git's blob ids of clean files instead of size+mtime: right for a fresh clone per job
   * (the app), where no mtime is ever seen twice and the files need not be read at all. A long-lived checkout (the
   * CLI) is cheaper to stat.
   */
  gitContentIds?: boolean;

  /** Worker threads for parsing in the repo map (default: cores − 1, at most 7). */
  mapThreads?: number;
  onProgress?: (p: CoderProgress) => void;
  /** The run's transcript recorder. */
  onTranscript?: TranscriptSink;
  signal?: AbortSignal;
  /** The same commands' results on the base (see run/prepare/baseline-run), to tell the change's failures from the base's. */
  baseline?: CoderDeps["baseline"];
  /**
   * The checkout's files are still being written (see PendingCheckout): the file list and the repo map come from
   * git meanwhile, and whatever reads or writes the files waits for them.
   */
  pending?: PendingCheckout;
  /** Settles once the repository's commands may run in the checkout (files written, container chosen). */
  commandsReady?: Promise<unknown>;
  /** Settles once the run's first commit may be made (the base's run has read its commit: it must not be ours). */
  commitReady?: Promise<unknown>;
  /** The run's commit published without a local commit first (see CoderDeps.publishAhead). */
  publishAhead?: CoderDeps["publishAhead"];
}

/** The folder a check runs in: the checkout, or a folder inside it (a step's working-directory); never outside. */
function checkCwd(root: string, rel: string | undefined): string {
  if (!rel) return root;
  const dir = path.resolve(root, rel);
  if (dir !== root && !dir.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`))
    throw new Error(`The check folder \`${rel}\` is outside the repository.`);
  return dir;
}

/** Wire the coder loop to the real edit engine, checks, repo map, workspace, git and model client. */
export function createCoderDeps(input: CoderDepsInput): CoderDeps {
  const { root, exec, git, llm, commitModel, pending } = input;
  const workspace = createFsWorkspace(root, exec, {
    protectedPaths: input.protectedPaths,
    ...(pending ? { pending } : {}),
  });
  // What runs git in the checkout comes after the run's own writes, which wait for the files; said here once more,
  // so that holds whatever calls it.
  const filesReady = async () => {
    if (pending) await pending.written;
  };
  const commitReady = async () => {
    await filesReady();
    await input.commitReady;
  };
  // Check output names files (`k.py:2:1: error`) that the repository's scripts may have made into links to
  // `/proc/self/environ` or the App's key: code context is read only through the confined reader.
  const reader = createConfinedReader(root);
  const readIfSafe = (rel: string): string | null => {
    const got = reader.read(rel);
    return got.ok ? got.content.toString("utf8") : null;
  };
  return {
    llm,
    workspace,
    parse: (format, text, ctx) => getEditFormat(format).parse(text, ctx),
    parseAndApply: (format, text, snapshot, options) =>
      parseAndApply(format, text, snapshot, {
        ...options,
        fence: options.fence ?? ["```", "```"],
        chatFiles: options.chatFiles,
      }),
    syntaxCheck,
    runCheck: async (req) => {
      await filesReady();
      await input.commandsReady;
      try {
        return await runCheckCommand(input.checkExec ?? exec, {
          kind: req.kind,
          command: req.command,
          cwd: checkCwd(root, req.cwd),
          timeoutMs: req.timeoutMs,
          files: req.files,
          ...(req.ciShell ? { ciShell: true } : {}),
          ...(req.fallback ? { fallback: req.fallback } : {}),
          ...(req.tool ? { tool: req.tool } : {}),
          ...signalOf(input.signal, req.signal),
        });
      } finally {
        // The repository's command may have created, deleted or staged files: the next file list asks git again.
        if (!req.keepsListing) workspace.invalidate?.();
      }
    },
    ...(input.checkExec?.sandboxMode ? { sandboxMode: () => input.checkExec!.sandboxMode!() } : {}),
    ...(input.checkExec?.egressReport ? { egressReport: () => input.checkExec!.egressReport!() } : {}),
    ...(input.baseline ? { baseline: input.baseline } : {}),
    renderCheckReflection: (report, files) => {
      const contents = new Map<string, string>();
      for (const f of new Set([...files, ...report.locations.map((l) => l.path)])) {
        const c = readIfSafe(f);
        if (c !== null) contents.set(f, c);
      }
      return renderCheckReflection(report, contents);
    },
    repoMap: repoMapOf(input, workspace),
    commit: async (req) => {
      await commitReady();
      return git.commit(root, req);
    },
    prepareCommit: async (paths, made) => {
      await commitReady();
      const ids = made ? await workspace.firstIndexIds?.() : null;
      const executables = input.publishAhead ? await workspace.firstExecutables?.() : null;
      return git.prepareCommit(
        root,
        paths,
        (await workspace.trackedFiles?.()) ?? undefined,
        made && ids ? { ...made, indexIds: ids } : undefined,
        executables ?? undefined,
      );
    },
    diffText: async (paths) => (await filesReady(), git.diffText(root, paths)),
    // Untracked new files are counted without touching the user's index.
    diffStats: async (paths) => (await filesReady(), git.diffStats(root, "HEAD", undefined, paths)),
    ...(commitModel
      ? {
          generateCommitMessage: (diff: string, context: string, signal?: AbortSignal) =>
            generateCommitMessage(llm, { model: commitModel, diff, context, ...(signal ? { signal } : {}) }),
        }
      : {}),
    onProgress: input.onProgress,
    ...(input.publishAhead ? { publishAhead: input.publishAhead } : {}),
    ...(input.onTranscript ? { onTranscript: input.onTranscript } : {}),
    now: () => Date.now(),
    signal: input.signal,
  };
}

/**
 * The run's repo map (its first is built as the first round starts). While the checkout's files are still being
 * written, the same map is made from git's side of it (the tree's listing, blobs by id: see buildRepoMapFromObjects);
 * when that cannot be done, it waits for the files.
 */
function repoMapOf(input: CoderDepsInput, workspace: Workspace): CoderDeps["repoMap"] {
  const { root, exec, git, pending } = input;
  const written = watchPending(pending);
  // Read once per run, beside the first map build: the clone's history does not change while the run edits.
  let history: Promise<string[][]> | undefined;
  // The grammars the round's syntax check will likely need, warmed once per run after its first map (see
  // warmGrammarsOf): the model writes meanwhile, and the check finds them loaded.
  let grammars: Promise<void> | undefined;
  const warmGrammars = (files: readonly string[], req: RepoMapRequest): void => {
    grammars ??= warmGrammarsOf(files, [...req.chatFiles, ...(req.mentionedFiles ?? []), ...(req.hintFiles ?? [])]);
  };
  return async (req) => {
    const wantsHistory = !!req.requestText || (req.hintFiles?.length ?? 0) > 0 || req.chatFiles.length > 0;
    if (wantsHistory) history ??= git.changeHistory(root).catch(() => []);
    const listed = () =>
      Promise.all([
        workspace.listFiles(),
        input.gitContentIds ? workspace.indexContentIds?.() : undefined,
        wantsHistory ? history : undefined,
      ]);
    const options = (files: string[], changes: string[][] | undefined) => ({
      root,
      files,
      chatFiles: req.chatFiles,
      mentionedFiles: req.mentionedFiles,
      mentionedIdents: req.mentionedIdents,
      mapTokens: req.mapTokens,
      ...(req.requestText !== undefined || req.hintFiles?.length
        ? { request: { text: req.requestText, hintFiles: req.hintFiles, history: changes } }
        : {}),
      cacheDir: input.cacheDir ?? null,
      ...(input.mapThreads !== undefined ? { threads: input.mapThreads } : {}),
    });
    if (pending && !written()) {
      // The files are still being written: the same map from git's side of the checkout, if it can be made so.
      const [files, ids, changes] = await listed();
      const early = ids
        ? await buildRepoMapFromObjects({
            ...options(files, changes),
            contentIds: ids.indexIds,
            objects: (wanted) => readBlobs(exec, root, wanted),
          })
        : null;
      if (early) {
        warmGrammars(files, req);
        return { text: early.text, rankedFiles: early.rankedFiles };
      }
      await pending.written;
    }
    const [files, ids, changes] = await listed();
    const map = await buildRepoMap({
      ...options(files, changes),
      ...(ids ? { contentIds: ids.indexIds, modifiedSinceIds: ids.modified } : {}),
    });
    warmGrammars(files, req);
    return { text: map.text, rankedFiles: map.rankedFiles };
  };
}

/** The job's signal and the request's own (a check run ahead, no longer wanted), either stopping the command. */
function signalOf(job: AbortSignal | undefined, own: AbortSignal | undefined): { signal?: AbortSignal } {
  const all = [job, own].filter((s): s is AbortSignal => !!s);
  return all.length ? { signal: all.length === 1 ? all[0]! : AbortSignal.any(all) } : {};
}

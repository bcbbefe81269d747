import type { RepoGitHub } from "../../github/repo-github.js";
import { fail } from "../../result.js";
import type { RunRequest } from "../run-request.js";
import { allocateContext } from "../../context/allocate-context.js";
import type { CountTokens } from "../../context/build-sources.js";
import { fixCiRequest } from "../../context/ci-request.js";
import { collectContext, type CollectArgs, type CollectedContext } from "../../context/fetch/collect-context.js";
import type { ReviewThread } from "../../context/pr-data.js";
import { DEFAULT_CONTEXT_BUDGET } from "../../config/context-budget.js";
import { renderContextBlocks, renderContextDetails } from "../../context/render-context.js";
import { addressReviewsRequest } from "../../context/review-request.js";
import { summariseKept, type Summarise } from "../../context/summarise-kept.js";
import type { ImageSet } from "../../coder/issue-images.js";
import type { InstructionSet } from "../../coder/repo-instructions.js";

/** What a run gets from its pull request (or issue) before the coder starts. */
export interface PreparedContext {
  /** Untrusted-data blocks for the coder's `prContext`. */
  blocks: { label: string; text: string }[];
  /** The status comment's details: sources and their token counts, and any note. */
  details: string;
  /** The instruction the coder gets instead of the request's text (address-reviews, fix-ci). */
  message?: string;
  /** Files to put in the chat besides the requested ones (the threads' files, the annotated files). */
  files: string[];
  /**
   * Files the context points at, for the repo map's ranking (not the chat): the pull request's changed files, the
   * files of its unresolved review threads and of failing checks' annotations. At most MAX_HINT_FILES.
   */
  hintFiles?: string[];
  /** fix-ci: the test command runs before the edit (reproduce) and after it even when `auto_test` is off. */
  autoTest: boolean;
  /** The run cannot go on (no unresolved thread, no failing check, or they could not be read): says why. */
  refuse?: string;
  /** The threads this run addresses: each gets a reply afterwards. */
  threads: ReviewThread[];
  /** The repository's instruction files, from the default branch. */
  instructions?: InstructionSet;
  /** The images of the issue or PR and notes on those left out. */
  images?: ImageSet;
}

export interface PrepareDeps {
  /** The gateway of the run's repository. */
  github: RepoGitHub;
  botLogin: string;
  /** e.g. https://github.com (links in notes). */
  webUrl: string;
  count: CountTokens;
  /** The weak model, for earlier runs that do not fit; absent: they are shortened instead. */
  summarise?: Summarise;
  /** Downloads the images found in these raw texts (fetch/collect-images); absent: images are not looked for. */
  images?: (texts: { label: string; text: string }[]) => Promise<ImageSet>;
}

/**
 * Read, sanitise and fit the context of a run: for a pull request its diff, conversation, review threads,
 * closing issues, failing checks and the bot's earlier runs; for an issue its conversation and earlier runs. For
 * `address-reviews` and `fix-ci` the instruction is built from the threads or checks. Never throws: a source that
 * cannot be read is a note (see collectContext), and a failure of the whole step leaves the run without context,
 * saying so in the status comment. Null for runs that carry no context spec (schedules).
 */
export async function preparePrContext(req: RunRequest, deps: PrepareDeps): Promise<PreparedContext | null> {
  const spec = req.context;
  const args = contextArgsOf(req, deps.botLogin, deps.webUrl);
  if (!spec || !args) return null;
  const mode = spec.mode;
  const isPullRequest = args.isPullRequest;
  let collected: CollectedContext;
  try {
    collected = await collectContext(deps.github, args, deps.count);
  } catch (error) {
    // collectContext guards each source; this is only reached by a bug or an unexpected shape. The run goes on.
    const note = `The ${isPullRequest ? "pull request's" : "issue's"} context could not be read (${error instanceof Error ? error.message : String(error)}); the run went on without it.`;
    if (mode.kind !== "plain")
      return { blocks: [], details: `⚠️ ${note}`, files: [], autoTest: false, threads: [], refuse: note };
    return { blocks: [], details: `⚠️ ${note}`, files: [], autoTest: false, threads: [] };
  }

  const unavailable = (kind: string) => collected.sources.find((s) => s.kind === kind)?.unavailable;
  let message: string | undefined;
  let threads: ReviewThread[] = [];
  let files: string[] = [];
  let refuse: string | undefined;
  if (mode.kind === "address-reviews") {
    const missing = unavailable("review_threads");
    const r = missing
      ? fail("unavailable", missing)
      : addressReviewsRequest(collected.threads, mode.threads, mode.extra);
    if (r.ok) {
      message = r.value.text;
      threads = r.value.threads;
      files = [...new Set(threads.filter((t) => !t.isOutdated).map((t) => t.path))];
    } else refuse = r.message;
  } else if (mode.kind === "fix-ci") {
    const missing = unavailable("checks");
    const r = missing ? fail("unavailable", missing) : fixCiRequest(collected.checks, mode.extra, req.settings.test);
    if (r.ok) {
      message = r.value;
      files = [...new Set(collected.checks.flatMap((c) => c.annotations.map((a) => a.path)))]
        .filter(isRepoPath)
        .slice(0, 10);
    } else refuse = r.message;
  }

  const images = deps.images
    ? await deps.images(imageTexts(req, collected, deps.botLogin)).catch(() => undefined)
    : undefined;
  const budget = { ...DEFAULT_CONTEXT_BUDGET, ...spec.budget };
  let allocations = allocateContext(collected.sources, budget);
  if (deps.summarise) allocations = await summariseKept(allocations, deps.summarise);
  // A log that could not be read (no `actions: read`) is a note inside its check for the model; the maintainer sees it
  // in the status comment, where granting the permission can be acted on.
  const logNotes = [...new Set(collected.checks.flatMap((c) => (c.logNote ? [c.logNote] : [])))].map(
    (n) => `⚠️ Failing checks: ${n}.`,
  );
  const auto = mode.kind === "fix-ci" ? mode.autofix : undefined;
  // The status comment says a run nobody asked for is an automatic one, and how many rounds remain.
  const autoNote = auto
    ? `🔁 Automatic CI fix, round ${auto.round} of ${auto.maxRounds} (\`ci.autofix\` is on; \`ci.max_rounds\` limits the rounds per pull request).\n\n`
    : "";
  return {
    blocks: renderContextBlocks(allocations),
    details:
      autoNote +
      (logNotes.length ? `${logNotes.join("\n")}\n\n` : "") +
      (isPullRequest
        ? renderContextDetails(allocations)
        : renderContextDetails(allocations).replace("Context from this pull request", "Context from this issue")),
    ...(message !== undefined ? { message } : {}),
    files,
    hintFiles: contextHintFiles(collected),
    autoTest: mode.kind === "fix-ci",
    threads,
    ...(refuse !== undefined ? { refuse } : {}),
    ...(images ? { images } : {}),
  };
}

/**
 * What {@link collectContext} reads for this run (pure), or null for a run without a context to read: a schedule's,
 * or one on a branch without a pull request. The App's triage reads the same ahead of the job (see
 * app/reads-prefetch), so both must build it here.
 */
export function contextArgsOf(
  req: Pick<RunRequest, "context" | "target" | "files" | "triggerCommentId" | "jobId">,
  botLogin: string,
  webUrl: string,
): CollectArgs | null {
  const spec = req.context;
  if (!spec || req.target.kind === "branch") return null;
  return {
    number: req.target.number,
    isPullRequest: req.target.kind !== "issue",
    ...(req.target.kind !== "issue" ? { headSha: req.target.headSha } : {}),
    botLogin,
    botAppSlug: botLogin.replace(/\[bot\]$/, ""),
    preferPaths: req.files,
    onlyThreads: spec.mode.kind === "address-reviews" ? spec.mode.threads : [],
    webUrl,
    ...(req.triggerCommentId !== undefined ? { skipCommentIds: [req.triggerCommentId] } : {}),
    ownJobId: req.jobId,
  };
}

/** Where images are looked for: the or PR's description, the request, and the people's comments (raw). */
function imageTexts(req: RunRequest, collected: CollectedContext, botLogin: string): { label: string; text: string }[] {
  const kind = req.target.kind === "issue" ? "issue" : "pull request";
  return [
    ...req.untrustedContext.map((u) => ({
      label: u.label.endsWith("title and description") ? `the ${kind}'s description` : u.label,
      text: u.text,
    })),
    { label: "the request", text: req.message },
    ...collected.comments
      .filter((c) => c.author.toLowerCase() !== botLogin.toLowerCase())
      .map((c) => ({ label: `the comment by @${c.author}`, text: c.body })),
  ];
}

/** Hint files kept for the map: a huge pull request's files say little each, and the map's head is short. */
const MAX_HINT_FILES = 50;

/** The files the collected context names (see PreparedContext.hintFiles), threads and annotations first. */
function contextHintFiles(collected: CollectedContext): string[] {
  const threads = collected.threads.filter((t) => !t.isResolved && !t.isOutdated).map((t) => t.path);
  const annotated = collected.checks.flatMap((c) => c.annotations.map((a) => a.path));
  const changed = collected.sources.find((s) => s.kind === "diff")?.items.map((i) => i.id) ?? [];
  return [...new Set([...threads, ...annotated, ...changed])].filter(isRepoPath).slice(0, MAX_HINT_FILES);
}

/**
 * Annotation paths are written by the repository's workflows: only plain relative paths go into the chat (the
 * workspace confines reads anyway; this keeps odd values out of the request).
 */
function isRepoPath(p: string): boolean {
  return (
    p.length > 0 &&
    p.length < 300 &&
    !p.startsWith("/") &&
    !p.split(/[\\/]/).includes("..") &&
    !/[\u0000-\u001f]/.test(p)
  );
}

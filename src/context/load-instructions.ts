import {
  AGENTS_FILE,
  ROOT_INSTRUCTION_FILES,
  type InstructionFile,
  type InstructionKind,
  type InstructionSet,
} from "../coder/repo-instructions.js";
import { sanitiseCode, sanitiseText } from "./sanitise-text.js";
import { GitHubError } from "../github/github-error.js";

/** Where instruction files are read: the default branch through GitHub's API (App), or the checkout (CLI). */
export interface InstructionSource {
  /** The repository's files (path, and size when known); a failure is thrown and becomes a note. */
  list(): Promise<{ paths: { path: string; size?: number }[]; truncated?: boolean }>;
  /** One file's text, null when it does not exist; a failure is thrown and becomes a note. */
  read(path: string): Promise<string | null>;
}

export interface LoadInstructionsOptions {
  /** Read the files found by name (`instructions:` in .github/aider.yml; false turns them off). */
  auto: boolean;
  /** `read:` (or `--read`): files always shown, read-only. */
  read: readonly string[];
  maxTokens: number;
  /** Where they are read, for the status table: "the default branch (main)", "the checkout". */
  from: string;
  /** Nested AGENTS.md files read at most (the shallowest first). */
  maxNested?: number;
  /** A larger file is not read (auto files) or is cut (read: files). */
  maxFileBytes?: number;
}

const MAX_NESTED = 40;
const MAX_FILE_BYTES = 100_000;
const CONCURRENCY = 8;

const sizeText = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)} KB` : `${n} bytes`);
const depth = (p: string) => p.split("/").length;
const isMarkdown = (p: string) => /\.(md|mdx|markdown|txt|rst)$/i.test(p) || !/\.[^/]+$/.test(p);

/** A `read:` entry fit to be a repository path: relative, no `..`, no control characters. */
export function isPlainRepoPath(p: string): boolean {
  return (
    p.length > 0 &&
    p.length < 300 &&
    !p.startsWith("/") &&
    !p.split(/[\\/]/).includes("..") &&
    !/[\u0000-\u001f]/.test(p)
  );
}

/**
 * The repository's instruction files, read from `source` and sanitised like any repository text (what
 * GitHub does not show is removed, invisible Unicode revealed). Never throws: what cannot be listed or read is a
 * note, and the run goes on with the rest. A file both found by name and listed in `read:` counts as `read:`.
 */
export async function loadInstructions(
  source: InstructionSource,
  opts: LoadInstructionsOptions,
): Promise<InstructionSet> {
  const notes: string[] = [];
  const maxBytes = opts.maxFileBytes ?? MAX_FILE_BYTES;
  const wanted: { path: string; kind: InstructionKind }[] = [];
  const tooLarge = new Set<string>();
  for (const p of opts.read) {
    if (!isPlainRepoPath(p))
      notes.push(`\`read:\` entry "${p.slice(0, 80)}" is not a path inside the repository: skipped.`);
    else if (!wanted.some((w) => w.path === p)) wanted.push({ path: p, kind: "read" });
  }
  if (opts.auto) {
    let listed: Awaited<ReturnType<InstructionSource["list"]>> | null = null;
    try {
      listed = await source.list();
      if (listed.truncated)
        notes.push("The repository's file list was too long to read whole: AGENTS.md files beyond it were not seen.");
    } catch (error) {
      notes.push(
        `The repository's files could not be listed (${describe(error)}): only the root instruction files were looked for.`,
      );
    }
    const size = new Map(listed?.paths.map((p) => [p.path, p.size]) ?? []);
    const has = (p: string) => !listed || size.has(p);
    for (const r of ROOT_INSTRUCTION_FILES) if (has(r.path)) wanted.push(r);
    const nested = (listed?.paths ?? [])
      .map((p) => p.path)
      .filter((p) => p.endsWith(`/${AGENTS_FILE}`) && isPlainRepoPath(p));
    nested.sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
    const maxNested = opts.maxNested ?? MAX_NESTED;
    if (nested.length > maxNested)
      notes.push(
        `${nested.length - maxNested} of ${nested.length} nested AGENTS.md files were not read (at most ${maxNested}, the shallowest first).`,
      );
    wanted.push(...nested.slice(0, maxNested).map((path) => ({ path, kind: "agents" as const })));
    for (const w of wanted.filter((w) => w.kind !== "read" && (size.get(w.path) ?? 0) > maxBytes)) {
      tooLarge.add(w.path);
      notes.push(`${w.path} was not read: it is over ${sizeText(maxBytes)}.`);
    }
  }
  const chosen = wanted.filter((w, i) => wanted.findIndex((x) => x.path === w.path) === i && !tooLarge.has(w.path));
  const files: InstructionFile[] = [];
  for (let i = 0; i < chosen.length; i += CONCURRENCY) {
    const batch = await Promise.all(
      chosen.slice(i, i + CONCURRENCY).map(async (w) => {
        try {
          return { w, text: await source.read(w.path) };
        } catch (error) {
          notes.push(`${w.path} could not be read (${describe(error)}).`);
          return { w, text: undefined };
        }
      }),
    );
    for (const { w, text } of batch) {
      if (text === undefined) continue;
      if (text === null) {
        if (w.kind === "read")
          notes.push(`\`read:\` file ${w.path} was not found${opts.from ? ` on ${opts.from}` : ""}.`);
        continue;
      }
      if (w.kind !== "read" && Buffer.byteLength(text) > maxBytes) continue;
      const cut =
        Buffer.byteLength(text) > maxBytes
          ? `${Buffer.from(text).subarray(0, maxBytes).toString("utf8")}\n[… cut at ${sizeText(maxBytes)}]`
          : text;
      const clean = isMarkdown(w.path) ? sanitiseText(cut).text : sanitiseCode(cut).text;
      if (clean.trim()) files.push({ path: w.path, kind: w.kind, text: clean });
    }
  }
  return { files, maxTokens: opts.maxTokens, from: opts.from, notes };
}

/**
 * A failed read for a note, by the gateway's error kind: a rate limit says when to retry, any other GitHub answer its
 * status. An error that is not GitHub's (a status on it would not be GitHub's answer) is told by its message.
 */
function describe(error: unknown): string {
  if (error instanceof GitHubError) {
    if (error.kind !== "rate-limited") return `HTTP ${error.status}`;
    const wait = error.retryAfterSeconds !== undefined ? `retry in ${error.retryAfterSeconds} s` : "retry later";
    return `GitHub's rate limit was hit: ${wait}`;
  }
  return error instanceof Error ? error.message.slice(0, 120) : String(error);
}

import { isUtf8 } from "node:buffer";
import { lstatSync, readFileSync, type Stats } from "node:fs";
import path from "node:path";
import { createConfinedReader } from "./confined-reader.js";
import { blobId, type CommitChangeEntry, type CommitChanges } from "./read-commit-changes.js";

/** What {@link readCommitAhead} needs: the paths `git commit --only` would commit, sorted as git sorted them. */
export interface CommitAheadInput {
  /** The checkout (its `.git` a folder of its own: a clone this app made). */
  dir: string;
  /** Staged paths git tracks: present (modified) or gone (deleted). */
  tracked: readonly string[];
  /** New files, not ignored, that the commit adds. */
  untracked: readonly string[];
  /** The message as git is handed it (composed and redacted); git's `--cleanup=whitespace` is applied here. */
  message: string;
  /** Tracked regular files whose mode is 100755 (null: not known, and then nothing is read ahead). */
  executables: ReadonlySet<string> | null;
  /** Past this many bytes of contents nothing is read (the API's limit; the commit is then pushed with git). */
  maxBytes: number;
  /**
   * The HOME git runs with (the app's child processes get an allow-listed environment, exec/base-env.ts: HOME, and
   * none of XDG_CONFIG_HOME or GIT_CONFIG_*), for the user's configuration and attributes git reads.
   */
  home: string | undefined;
}

/**
 * The commit `git commit --cleanup=whitespace --only -- <paths>` would make, read from the work tree without a git
 * process, so GitHub's API can be asked to make it with no local commit first (see run/publish/commit-ahead.ts):
 * its parent (HEAD, read from `.git`), its message, and each path's change with its bytes. It is that commit only
 * where nothing but git decides what is committed, so null (git's own commit is then read afterwards, as before)
 * whenever something else could take part:
 * - a commit hook, or a `core.hooksPath` in any configuration git reads (a hook may refuse or change the commit);
 * - attributes: a `.gitattributes` file in the root or any folder on a committed path's way, `.git/info/attributes`,
 *   a user's or the system's attributes file, or an `autocrlf`, `eol`, `attributesFile` or include in the
 *   configuration (line-ending and filter rules make git store other bytes than the work tree's);
 * - a path that is not a regular file the confined reader reads as itself (a link, a folder, a fifo), a HEAD that is
 *   not a branch's commit or a detached commit, or contents over `maxBytes`.
 * A file that is not UTF-8 text, a new executable or a mode change is read as it is: the API plan refuses those.
 */
export function readCommitAhead(input: CommitAheadInput): CommitChanges | null {
  const { dir } = input;
  if (input.executables === null) return null;
  const paths = [...input.tracked, ...input.untracked];
  if (paths.length === 0 || paths.some((p) => path.posix.basename(p) === ".gitattributes")) return null;
  // A few dozen small synchronous reads and stats (~0.1 ms): awaited one by one, each waited a turn of a busy loop.
  const parent = headCommit(dir);
  if (parent === null || !onlyGitDecides(dir, paths, input.home)) return null;
  const reader = createConfinedReader(dir, { maxBytes: input.maxBytes });
  const untracked = new Set(input.untracked);
  const entries: CommitChangeEntry[] = [];
  const contents = new Map<string, Buffer>();
  let bytes = 0;
  for (const p of paths) {
    const srcMode = untracked.has(p) ? "000000" : input.executables.has(p) ? "100755" : "100644";
    const r = reader.read(p);
    if (!r.ok) {
      if (r.reason !== "missing" || untracked.has(p)) return null;
      entries.push({ status: "D", srcMode, dstMode: "000000", dstOid: "0".repeat(parent.length), path: p });
      continue;
    }
    if (r.resolved !== p) return null;
    const info = lstatOrNull(path.join(dir, p));
    if (!info?.isFile()) return null;
    bytes += r.content.length;
    if (bytes > input.maxBytes) return null;
    const dstMode = info.mode & 0o100 ? "100755" : "100644";
    const dstOid = blobId(r.content, parent.length);
    entries.push({ status: untracked.has(p) ? "A" : "M", srcMode, dstMode, dstOid, path: p });
    // Only UTF-8 text is offered to the API (as after git's own commit): anything else leaves the plan to git.
    if (isUtf8(r.content)) contents.set(p, r.content);
  }
  return { parent, message: cleanupWhitespace(input.message), entries, bytes, contents };
}

/**
 * A message as `git commit --cleanup=whitespace` stores it (pure): trailing whitespace off every line, runs of empty
 * lines made one, leading and trailing empty lines dropped, and one final newline (none when nothing is left).
 */
export function cleanupWhitespace(message: string): string {
  const out: string[] = [];
  let empties = 0;
  for (const raw of message.replace(/\r\n/g, "\n").split("\n")) {
    const line = raw.replace(/[ \t\v\f\r]+$/, "");
    if (line === "") {
      empties++;
      continue;
    }
    if (empties && out.length) out.push("");
    empties = 0;
    out.push(line);
  }
  return out.length ? `${out.join("\n")}\n` : "";
}

/** HEAD's commit, read from `.git/HEAD` and the branch's ref (loose or packed); null when it does not read so. */
export function headCommit(dir: string): string | null {
  const gitDir = path.join(dir, ".git");
  const head = readText(path.join(gitDir, "HEAD"));
  if (head === null) return null;
  const detached = /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/.exec(head);
  if (detached) return detached[1]!;
  const ref = /^ref: (refs\/heads\/[^\s]+)\n?$/.exec(head)?.[1];
  if (!ref || ref.split("/").some((part) => part === ".." || part === "." || part === "")) return null;
  const loose = readText(path.join(gitDir, ref));
  if (loose !== null) return /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/.exec(loose)?.[1] ?? null;
  const packed = readText(path.join(gitDir, "packed-refs"));
  for (const line of packed?.split("\n") ?? []) {
    const m = /^([0-9a-f]{40}|[0-9a-f]{64}) (.+)$/.exec(line);
    if (m && m[2] === ref) return m[1]!;
  }
  return null;
}

/** Hooks git runs while committing (or moving the branch): each of them may refuse or change the commit. */
const COMMIT_TIME_HOOKS = [
  "pre-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "reference-transaction",
  "post-index-change",
];

/** Configuration that would let something besides git's plain storing decide the commit's bytes or run code. */
const DECIDING_CONFIG = /hookspath|attributesfile|autocrlf|\beol\b|\binclude/i;

/** Whether git alone decides what `git commit` stores for `paths` in `dir` (see {@link readCommitAhead}). */
function onlyGitDecides(dir: string, paths: readonly string[], home: string | undefined): boolean {
  const gitDir = path.join(dir, ".git");
  if (!lstatOrNull(gitDir)?.isDirectory()) return false;
  const xdg = home ? path.join(home, ".config") : "";
  const configs = [
    path.join(gitDir, "config"),
    home ? path.join(home, ".gitconfig") : "",
    xdg ? path.join(xdg, "git", "config") : "",
    "/etc/gitconfig",
  ].filter(Boolean);
  for (const file of configs) if (DECIDING_CONFIG.test(readText(file) ?? "")) return false;
  const folders = new Set([""]);
  for (const p of paths)
    for (let d = path.posix.dirname(p); d !== "." && d !== ""; d = path.posix.dirname(d)) folders.add(d);
  const mustBeAbsent = [
    ...COMMIT_TIME_HOOKS.map((hook) => path.join(gitDir, "hooks", hook)),
    path.join(gitDir, "info", "attributes"),
    xdg ? path.join(xdg, "git", "attributes") : "",
    "/etc/gitattributes",
    ...[...folders].map((d) => path.join(dir, d, ".gitattributes")),
  ].filter(Boolean);
  return mustBeAbsent.every((f) => absent(f));
}

/** A file's text, or null when it cannot be read (missing). */
function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

function lstatOrNull(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

/** Nothing at `file` (anything else, even an error reading it, counts as there). */
function absent(file: string): boolean {
  try {
    lstatSync(file);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR";
  }
}

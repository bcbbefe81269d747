import { createHash, randomBytes } from "node:crypto";
import {
  constants,
  copyFileSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { copyFile, mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { writeBareSkeleton } from "./git-clean-dir.js";
import { takeLock } from "./mirror-lock.js";
import type { GitRun } from "./git-runner.js";

/** Where a repository's mirror lives, and when it is rebuilt instead of growing further. */
export interface MirrorPlace {
  /** Folder of the mirrors (in the cache dir, which repository commands never see: the sandbox hides it). */
  root: string;
  /**
   * Kept apart beyond the URL: the installation. A repository deleted and created again under the same name by
   * another account is another installation, so none of the old objects ever reach its checkouts.
   */
  scope: string;
  /** Rebuild after this many fetches' packs (default 24): every pack is one more file to link per checkout. */
  maxPacks?: number;
}

export type MirrorClone = { ok: true; cold: boolean } | { ok: false; reason: string };

/** The fetch into the mirror; longer is left to the plain clone, whose own timeout and errors the user sees. */
const FETCH_TIMEOUT_MS = 5 * 60_000;

/**
 * A shallow checkout of one branch made from this repository's mirror: the mirror (a bare repository in the cache dir,
 * the bot's alone) fetches the branch's tip at depth 1, which on a warm mirror transfers only what changed since the
 * last run; its pack files are then hard-linked (copied across file systems) into a new checkout, whose config,
 * refs and shallow boundary are written as `git clone --depth 1 --single-branch --no-tags` writes them, and one
 * `read-tree` fills the index and the work tree.
 *
 * Why links are safe: git never writes into a pack file it has finished (a repack writes new ones and unlinks the
 * old), and repository commands run with the checkout's `.git` read-only and the cache dir hidden (exec/sandbox).
 *
 * Files it touches directly: the bot's own (the mirror and its lock in the cache dir, which only git and this module
 * write), the new checkout folder (checked empty before anything is written) and its `.git`, written here before git
 * puts any of the repository's content in it. It never reads a checkout's content: that goes through the confined
 * reader (workspace/confined-reader).
 *
 * Never the only way: `{ ok: false }` (another job of the repository holds the mirror, or any step failed) leaves
 * `dir` absent for the caller's plain clone, and a mirror that failed a step is thrown away and built again next
 * time. The checkout cannot be wrong even if two processes raced over the mirror: HEAD names the commit this fetch
 * reported, and objects are addressed by content, so a missing object fails `read-tree` rather than changing a file.
 */
export async function cloneFromMirror(
  run: GitRun,
  req: {
    url: string;
    branch: string;
    dir: string;
    token?: string;
    onTree?(commit: string): void;
    /**
     * The tip a fetch into this mirror made for this run moments ago (see {@link fetchIntoMirror}), awaited first:
     * the checkout is made from it, with no fetch of its own, while the mirror's ref of the branch still names it and
     * the mirror was not rebuilt since. Otherwise (null, another job moved the ref, a rebuild) it fetches as always.
     */
    fetched?: Promise<string | null>;
  },
  place: MirrorPlace,
): Promise<MirrorClone> {
  if (/[\0-\x1f\x7f]/.test(req.url + req.branch))
    return { ok: false, reason: "the URL or branch name has control characters" };
  // The steps up to the fetch are synchronous (a few small file operations): the fetch is the run's first wait, and
  // it starts in the turn the run asks for its checkout. Each awaited step had let the run's first GitHub requests
  // (built and parsed on this thread meanwhile) go first: the fetch started 35–50 ms after the call.
  // Never into a folder with something in it: a failed step removes the folder it was making.
  if (listOrNull(req.dir)?.length) return { ok: false, reason: "the checkout folder is not empty" };
  const mirror = mirrorPath(place, req.url);
  const gitDir = path.join(path.resolve(req.dir), ".git");
  // A fetch made ahead holds the mirror until it ends, and the checkout takes the mirror's lock after it. Its `.git`
  // is written meanwhile, as below while a fetch of its own runs (the mirror's finished packs are never changed; a
  // rebuild after it leaves links to packs nothing needs, and a failed step removes the folder).
  let early = req.fetched ? earlyGitDir(mirror, gitDir, req) : null;
  const fetched = req.fetched ? await req.fetched.catch(() => null) : null;
  const lock = takeLock(`${mirror}.lock`);
  if (!lock) {
    if (early) {
      await Promise.all(early.copying).catch(() => undefined);
      await rm(req.dir, { recursive: true, force: true });
    }
    return { ok: false, reason: "another job of this repository is using its mirror" };
  }
  try {
    const cold = await ensureMirror(mirror, place.maxPacks ?? 24);
    const ready = fetched && !cold && mirrorRef(mirror, req.branch) === fetched ? fetched : null;
    const fetching = ready ? Promise.resolve(ready) : fetchTip(run, mirror, req);
    // While the fetch waits on the network: the checkout's `.git` as far as it does not depend on what is fetched
    // (folders, HEAD, config, links to the packs the mirror already had: git never changes a finished pack, and the
    // fetch only adds one). On a busy disk these file operations took 15–30 ms between the fetch and read-tree.
    try {
      early ??= prepareCheckoutGitDir(mirror, gitDir, req);
    } catch (error) {
      // The folder and the mirror are thrown away below: not while the fetch still writes into the mirror.
      await fetching.catch(() => undefined);
      throw error;
    }
    const tip = await fetching;
    // Synchronous from the fetch's end to read-tree's start (a few small file operations), for the reason above:
    // each awaited step let the work queued meanwhile (the pull request's context, read beside the clone) go first.
    const copying = [...early.copying, ...finishCheckoutGitDir(mirror, gitDir, tip, req, early.linked)];
    if (copying.length) await Promise.all(copying);
    const written = run(req.dir, ["read-tree", "-u", "--reset", tip]);
    // The checkout's git now has the commit (its objects, HEAD, refs): what needs no work tree can start while
    // read-tree writes the files, the run's longest wait after the fetch.
    req.onTree?.(tip);
    await written;
    return { ok: true, cold };
  } catch (error) {
    await rm(req.dir, { recursive: true, force: true });
    await discard(mirror);
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await lock.release();
  }
}

/**
 * The branch's tip fetched into the repository's mirror ahead of the run that will clone from it (the App starts it
 * at triage, once the request is authorised and the job's git token is minted, while the job is queued and its
 * process starts); that run's {@link cloneFromMirror} then makes its checkout without a fetch of its own. Resolves
 * to the tip, or null: the mirror is busy with another job (nothing done), or the fetch failed (the mirror is
 * thrown away, as a failed checkout would; the run then clones as it would have). Holds the mirror's lock while it
 * runs and never leaves it held. What it leaves in the mirror is what any run on the branch leaves there.
 */
export async function fetchIntoMirror(
  run: GitRun,
  req: { url: string; branch: string; token?: string },
  place: MirrorPlace,
): Promise<string | null> {
  if (/[\0-\x1f\x7f]/.test(req.url + req.branch)) return null;
  const mirror = mirrorPath(place, req.url);
  const lock = takeLock(`${mirror}.lock`);
  if (!lock) return null;
  try {
    await ensureMirror(mirror, place.maxPacks ?? 24);
    return await fetchTip(run, mirror, req);
  } catch {
    await discard(mirror);
    return null;
  } finally {
    await lock.release();
  }
}

/**
 * The checkout's `.git` written while a fetch made ahead still holds the mirror (see `fetched`), or null when that
 * failed (a mirror not made yet, say): the folder is then removed and written again after the fetch, as always.
 */
function earlyGitDir(
  mirror: string,
  gitDir: string,
  req: { url: string; branch: string },
): ReturnType<typeof prepareCheckoutGitDir> | null {
  try {
    return prepareCheckoutGitDir(mirror, gitDir, req);
  } catch {
    rmSync(path.dirname(gitDir), { recursive: true, force: true });
    return null;
  }
}

/** The repository's mirror folder (its root made): named from the installation's scope and the URL. */
function mirrorPath(place: MirrorPlace, url: string): string {
  const name = createHash("sha256").update(`${place.scope}\n${url}`).digest("hex").slice(0, 32);
  mkdirSync(place.root, { recursive: true, mode: 0o700 });
  return path.join(place.root, `${name}.git`);
}

/** The commit the mirror's `refs/heads/<branch>` names (as a fetch writes it, loose), or null. */
function mirrorRef(mirror: string, branch: string): string | null {
  const heads = path.join(mirror, "refs", "heads");
  const file = path.join(heads, branch);
  if (!file.startsWith(heads + path.sep)) return null;
  try {
    return readFileSync(file, "utf8").trim() || null;
  } catch {
    return null;
  }
}

/** Creates the mirror if missing, or again if it has grown past `maxPacks`; true when it starts empty. */
async function ensureMirror(mirror: string, maxPacks: number): Promise<boolean> {
  const packs = listOrNull(path.join(mirror, "objects", "pack"));
  if (packs !== null && packs.filter((f) => f.endsWith(".pack")).length <= maxPacks) return false;
  if (packs !== null) await discard(mirror);
  await writeBareSkeleton(mirror);
  await mkdir(path.join(mirror, "objects", "pack"));
  return true;
}

/**
 * Fetches the branch at depth 1 into the mirror's `refs/heads/<branch>` (every branch fetched before stays as a ref,
 * so the server is told what the mirror has and sends only the rest) and returns the tip it fetched. Everything a
 * fetch receives stays packed (`fetch.unpackLimit=1`): a checkout links whole packs and never walks loose objects.
 */
async function fetchTip(
  run: GitRun,
  mirror: string,
  req: { url: string; branch: string; token?: string },
): Promise<string> {
  const args = [
    "-c",
    "fetch.unpackLimit=1",
    "-c",
    "gc.auto=0",
    "fetch",
    "--quiet",
    "--no-tags",
    "--depth",
    "1",
    "--",
    req.url,
    `+refs/heads/${req.branch}:refs/heads/${req.branch}`,
  ];
  await run(mirror, args, {
    ...(req.token ? { token: req.token } : {}),
    env: { GIT_DIR: mirror },
    timeoutMs: FETCH_TIMEOUT_MS,
  });
  const fetched = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)\t/.exec(readFileSync(path.join(mirror, "FETCH_HEAD"), "utf8"));
  if (!fetched?.[1]) throw new Error("the mirror's fetch reported no commit");
  return fetched[1];
}

/**
 * The checkout's `.git` as a depth-1 single-branch clone leaves it (before its checkout), in two steps. This one,
 * while the mirror fetches: the folders, HEAD on the branch, a config naming `origin` with the clone's refspec, and
 * links to the mirror's packs so far; returns the packs it linked and the copies under way. The branch name was
 * accepted by git as a ref name when the fetch was asked for (no `..`, no leading `/`); it is still checked to stay
 * under `refs/`.
 */
function prepareCheckoutGitDir(
  mirror: string,
  gitDir: string,
  req: { url: string; branch: string },
): { linked: Set<string>; copying: Promise<void>[] } {
  const refs = path.join(gitDir, "refs");
  for (const ref of branchRefs(gitDir, req.branch))
    if (!ref.startsWith(refs + path.sep)) throw new Error("the branch name leaves refs/");
  mkdirSync(path.join(gitDir, "objects", "pack"), { recursive: true });
  mkdirSync(path.join(gitDir, "objects", "info"));
  mkdirSync(path.join(refs, "tags"), { recursive: true });
  writeFileSync(path.join(gitDir, "HEAD"), `ref: refs/heads/${req.branch}\n`);
  writeFileSync(path.join(gitDir, "config"), checkoutConfig(req.url, req.branch));
  return linkPacks(mirror, gitDir, new Set());
}

/**
 * The rest, once the mirror has `tip`: links to the packs the fetch added (only packs: the mirror's fetches keep
 * everything packed; a loose object would be missing here, fail read-tree, and have the mirror rebuilt), its shallow
 * boundary, and the branch and its remote-tracking ref at `tip`. Returns the copies under way.
 */
function finishCheckoutGitDir(
  mirror: string,
  gitDir: string,
  tip: string,
  req: { branch: string },
  linked: Set<string>,
): Promise<void>[] {
  const { copying } = linkPacks(mirror, gitDir, linked);
  copyFileSync(path.join(mirror, "shallow"), path.join(gitDir, "shallow"));
  for (const ref of branchRefs(gitDir, req.branch)) writeRef(ref, tip);
  return copying;
}

/** The checkout's branch and its remote-tracking ref. */
function branchRefs(gitDir: string, branch: string): [string, string] {
  const refs = path.join(gitDir, "refs");
  return [path.join(refs, "heads", branch), path.join(refs, "remotes", "origin", branch)];
}

/** Links (or copies) the mirror's packs not in `linked` into the checkout; `linked` grows by them. */
function linkPacks(
  mirror: string,
  gitDir: string,
  linked: Set<string>,
): { linked: Set<string>; copying: Promise<void>[] } {
  const packDir = path.join(mirror, "objects", "pack");
  const packs = readdirSync(packDir).filter((f) => /^pack-[0-9a-f]+\.(?:pack|idx|rev)$/.test(f) && !linked.has(f));
  const copying: Promise<void>[] = [];
  for (const f of packs) {
    const copy = linkOrCopy(path.join(packDir, f), path.join(gitDir, "objects", "pack", f));
    // Awaited before read-tree; should the fetch fail first, a failed copy is no unhandled rejection.
    copy?.catch(() => undefined);
    if (copy) copying.push(copy);
    linked.add(f);
  }
  return { linked, copying };
}

/** The config `git clone --single-branch --no-tags --branch <branch> <url>` writes. */
export function checkoutConfig(url: string, branch: string): string {
  const value = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  return [
    "[core]",
    "\trepositoryformatversion = 0",
    "\tfilemode = true",
    "\tbare = false",
    "\tlogallrefupdates = true",
    '[remote "origin"]',
    `\turl = ${value(url)}`,
    "\ttagOpt = --no-tags",
    `\tfetch = ${value(`+refs/heads/${branch}:refs/remotes/origin/${branch}`)}`,
    `[branch ${value(branch)}]`,
    "\tremote = origin",
    `\tmerge = ${value(`refs/heads/${branch}`)}`,
    "",
  ].join("\n");
}

function writeRef(file: string, sha: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${sha}\n`);
}

/** A hard link made at once, or the copy under way (another file system; a pack may be large, so not in line). */
function linkOrCopy(from: string, to: string): Promise<void> | null {
  try {
    linkSync(from, to);
    return null;
  } catch (error) {
    // Another file system (work dir and cache dir on different volumes): a copy, as cheap as the disk allows.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EXDEV" && code !== "EPERM") throw error;
    return copyFile(from, to, constants.COPYFILE_FICLONE);
  }
}

/** Moved aside first, so a holder racing this one never sees a half-deleted mirror under the mirror's name. */
async function discard(mirror: string): Promise<void> {
  const aside = `${mirror}.discarded-${process.pid}-${randomBytes(4).toString("hex")}`;
  if (
    await rename(mirror, aside).then(
      () => true,
      () => false,
    )
  )
    await rm(aside, { recursive: true, force: true });
}

/** A folder's entries, or null when it cannot be read (missing). */
function listOrNull(dir: string): string[] | null {
  try {
    return readdirSync(dir);
  } catch {
    return null;
  }
}

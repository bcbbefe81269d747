/**
 * Recall benchmark (`npm run bench recall`): does the repo map show the files a real change needed? Cases come from
 * the git history of the repository the bench runs in (CI has a full clone), by a fixed rule: the newest commits
 * (at most MAX_CASES) with one parent that modify 1–3 files, every one of them an existing source file (a language
 * the map parses, not a test file by isTestFile's rule), none added, deleted or renamed. For each case the parent is
 * exported into a temporary folder (`git archive`), the commit's subject is the request, and the map is built as a
 * headless run builds it: the files the subject names join the chat, the rest is ranked — once as today (PageRank
 * towards mentions) and once with the request-aware ranking (the subject's text and the parent's recent history),
 * side by side in one run, sharing one tag cache (warmed by an untimed build first, so both are timed warm).
 * A changed file counts as shown when it is in the chat or the map text. Printed per budget (1,024 and 2,048
 * tokens): share of cases with any / all changed files shown, mean per-case recall, MRR of the first changed file
 * in the whole ranking (chat files first), and the ratio of map build times (new / today).
 * Build time is the process CPU time of each build (steadier than wall time on a shared machine), wall time too:
 * each timed call is one `buildRepoMap` (ignore rules, tag cache, graph, ranking with the request's relevance, fit
 * to budget), the same options apart from `request`. The history (`git log`) is read before, untimed, as a run reads
 * it once in create-coder-deps; the lexical index is cached with the graph, which the untimed warm-up build stores.
 * Target at 2,048 tokens: mean recall ≥ 0.70, build time ≤ 1.2×. Run: `npx tsx bench/recall-bench.ts [repo]`.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { findFileMentions } from "../src/coder/find-file-mentions.js";
import { loadTokenizer } from "../src/llm/count-tokens.js";
import { buildRepoMap, type RepoMap } from "../src/repomap/build-repo-map.js";
import { createTagExtractor } from "../src/repomap/extract-tags.js";
import { findMentions } from "../src/repomap/mentioned-idents.js";
import { isTestFile } from "../src/repomap/test-pairs.js";
import { CHANGE_HISTORY_COMMITS, changeHistoryArgs, parseChangeHistory } from "../src/workspace/git-change-history.js";
import { languageForPath } from "../src/treesitter/languages.js";

const MAX_CASES = 40;
const BUDGETS = [1024, 2048] as const;

interface Case {
  sha: string;
  parent: string;
  subject: string;
  changed: string[];
}

interface Score {
  any: boolean;
  all: boolean;
  recall: number;
  rr: number;
}

/** Select the cases, build both maps per case and budget, print the figures. */
export async function runRecallBench(repoArg?: string): Promise<void> {
  const repo = git(repoArg ?? process.cwd(), ["rev-parse", "--show-toplevel"]).trim();
  const cases = selectCases(repo);
  console.log(
    `recall: ${cases.length} cases from ${repo} (newest ≤ ${MAX_CASES} single-parent commits modifying 1–3 existing non-test source files)`,
  );
  if (cases.length === 0) {
    console.log("recall: no case found (a shallow clone? run `git fetch --unshallow`)");
    return;
  }
  await loadTokenizer();
  const tmp = await mkdtemp(path.join(os.tmpdir(), "recall-bench-"));
  const extractor = createTagExtractor();
  const scores = new Map<string, Score[]>();
  const ms = { today: 0, request: 0 };
  const cpuMs = { today: 0, request: 0 };
  try {
    const cacheDir = path.join(tmp, "cache");
    for (const [i, c] of cases.entries()) {
      const root = path.join(tmp, `case-${i}`);
      execFileSync("sh", [
        "-c",
        `mkdir -p "$2" && git -C "$1" archive "$3" | tar -x -C "$2"`,
        "sh",
        repo,
        root,
        c.parent,
      ]);
      const files = git(repo, ["ls-tree", "-r", "--name-only", "-z", c.parent]).split("\0").filter(Boolean);
      const history = parseChangeHistory(git(repo, changeHistoryArgs(CHANGE_HISTORY_COMMITS, c.parent)));
      // As run-coder: files the request names join the chat; mentions steer the map.
      const chat = findFileMentions(c.subject, { repoFiles: files, chatFiles: [], readFiles: [] });
      const mentions = findMentions(c.subject, files, chat);
      const base = {
        root,
        files,
        chatFiles: chat,
        mentionedFiles: mentions.mentionedFiles,
        mentionedIdents: mentions.mentionedIdents,
        cacheDir,
        extractor,
        threads: 0,
      };
      await buildRepoMap({ ...base, mapTokens: 1024 }); // warms the tag cache for this tree, untimed
      for (const mapTokens of BUDGETS) {
        const [today, todayCpu] = await timed(() => buildRepoMap({ ...base, mapTokens }));
        const [request, requestCpu] = await timed(() =>
          buildRepoMap({ ...base, mapTokens, request: { text: c.subject, history } }),
        );
        ms.today += today.stats.ms;
        ms.request += request.stats.ms;
        cpuMs.today += todayCpu;
        cpuMs.request += requestCpu;
        push(scores, `today@${mapTokens}`, score(c, chat, today));
        push(scores, `request@${mapTokens}`, score(c, chat, request));
      }
      await rm(root, { recursive: true, force: true });
    }
  } finally {
    extractor.dispose();
    await rm(tmp, { recursive: true, force: true });
  }
  console.log("ranking    tokens  any shown  all shown  mean recall  MRR");
  for (const mapTokens of BUDGETS) {
    for (const kind of ["today", "request"] as const) {
      const s = scores.get(`${kind}@${mapTokens}`) ?? [];
      const mean = (f: (x: Score) => number): string => (s.reduce((a, x) => a + f(x), 0) / s.length).toFixed(2);
      console.log(
        `${kind.padEnd(9)}  ${String(mapTokens).padStart(6)}  ${mean((x) => +x.any).padStart(9)}  ${mean((x) => +x.all).padStart(9)}  ${mean((x) => x.recall).padStart(11)}  ${mean((x) => x.rr)}`,
      );
    }
  }
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}× (${Math.round(a)} ms / ${Math.round(b)} ms)`;
  console.log(`map build time, request-aware / today, summed over all builds (warm tag cache, no worker threads):`);
  console.log(`  CPU time ${ratio(cpuMs.request, cpuMs.today)}; wall time ${ratio(ms.request, ms.today)}`);
}

/** A result and the process CPU time (user + system, ms) it took: steadier than wall time on a shared machine. */
async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const before = process.cpuUsage();
  const value = await f();
  const used = process.cpuUsage(before);
  return [value, (used.user + used.system) / 1000];
}

function push(scores: Map<string, Score[]>, key: string, s: Score): void {
  scores.set(key, [...(scores.get(key) ?? []), s]);
}

function score(c: Case, chat: readonly string[], map: RepoMap): Score {
  const shown = new Set([...chat, ...map.shownFiles]);
  const hits = c.changed.filter((f) => shown.has(f)).length;
  const order = [...chat, ...map.rankedFiles];
  const first = order.findIndex((f) => c.changed.includes(f));
  return {
    any: hits > 0,
    all: hits === c.changed.length,
    recall: hits / c.changed.length,
    rr: first < 0 ? 0 : 1 / (first + 1),
  };
}

/** The cases, by the rule in the header, newest first. */
function selectCases(repo: string): Case[] {
  const out = git(repo, ["log", "--no-merges", "--no-renames", "--name-status", "--format=%x1e%H%x1f%P%x1f%s", "HEAD"]);
  const cases: Case[] = [];
  for (const record of out.split("\x1e")) {
    if (cases.length >= MAX_CASES) break;
    const [head = "", ...lines] = record.split("\n");
    const [sha, parents = "", subject = ""] = head.split("\x1f");
    if (!sha || parents.split(" ").filter(Boolean).length !== 1) continue;
    const entries = lines.filter(Boolean).map((l) => l.split("\t"));
    const ok =
      entries.length >= 1 &&
      entries.length <= 3 &&
      entries.every(([status, p]) => status === "M" && !!p && languageForPath(p) !== null && !isTestFile(p));
    if (ok) cases.push({ sha, parent: parents.trim(), subject, changed: entries.map(([, p]) => p as string) });
  }
  return cases;
}

function git(dir: string, args: string[]): string {
  return execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
}

if (import.meta.url === `file://${process.argv[1]}`) await runRecallBench(process.argv[2]);

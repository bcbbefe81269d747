/** Folders that hold tests or sources without saying what the code is about. */
const NEUTRAL_DIRS = new Set([
  "test",
  "tests",
  "__tests__",
  "spec",
  "specs",
  "src",
  "lib",
  "source",
  "sources",
  "app",
  "pkg",
  "internal",
]);

/** Whether a path looks like a test file (`*.test.ts`, `*_test.go`, `test_*.py`, `*Test.java`, under `test/`). */
export function isTestFile(relPath: string): boolean {
  let test = TESTS.get(relPath);
  if (test === undefined) {
    if (TESTS.size >= MAX_KEYS) TESTS.clear();
    TESTS.set(relPath, (test = looksLikeTest(relPath)));
  }
  return test;
}

/** Answers for paths seen, shared by every build of the process. */
const TESTS = new Map<string, boolean>();

function looksLikeTest(relPath: string): boolean {
  const base = relPath.slice(relPath.lastIndexOf("/") + 1);
  if (
    /(^|[._-])(test|spec)s?\.[^.]+$/i.test(base) ||
    /^test_/i.test(base) ||
    /[a-z0-9](Test|Tests|Spec)\.[^.]+$/.test(base)
  )
    return true;
  return relPath
    .split("/")
    .slice(0, -1)
    .some((d) => d === "test" || d === "tests" || d === "__tests__" || d === "spec");
}

/**
 * What a test and its source have in common: the file name without test markers and extensions, and the folders
 * without the neutral ones. `test/jobs/queue.test.ts` and `src/jobs/queue.ts` both give `jobs/queue`.
 */
export function pairKey(relPath: string): string {
  let key = KEYS.get(relPath);
  if (key === undefined) {
    if (KEYS.size >= MAX_KEYS) KEYS.clear();
    KEYS.set(relPath, (key = computeKey(relPath)));
  }
  return key;
}

/** Keys of paths seen, shared by every build of the process (paths recur build after build). */
const KEYS = new Map<string, string>();
const MAX_KEYS = 200_000;

function computeKey(relPath: string): string {
  const parts = relPath.split("/");
  let base = parts.pop() ?? "";
  base = base.replace(/\.[^.]+$/, "").replace(/\.d$/, "");
  base = base
    .replace(/[._-](test|spec)s?$/i, "")
    .replace(/^test_/i, "")
    .replace(/([a-z0-9])(Tests?|Spec)$/, "$1");
  const dirs = parts.filter((d) => !NEUTRAL_DIRS.has(d));
  return [...dirs, base].join("/").toLowerCase();
}

/**
 * Tests paired with their sources, both ways: each test file with the source files of the same {@link pairKey},
 * each source file with its tests. A key with only tests or only sources pairs nothing. Deterministic (input order).
 * Example: `pairTests(["src/a/b.ts", "test/a/b.test.ts"]).get("src/a/b.ts")` → ["test/a/b.test.ts"].
 */
export function pairTests(files: readonly string[]): ReadonlyMap<string, readonly string[]> {
  // Build after build serves the same files: the last answer is kept (it is never modified).
  if (LAST_PAIRS && sameList(LAST_PAIRS.files, files)) return LAST_PAIRS.pairs;
  const pairs = computePairs(files);
  LAST_PAIRS = { files: [...files], pairs };
  return pairs;
}

let LAST_PAIRS: { files: readonly string[]; pairs: ReadonlyMap<string, readonly string[]> } | null = null;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function computePairs(files: readonly string[]): Map<string, string[]> {
  const byKey = new Map<string, { tests: string[]; sources: string[] }>();
  for (const f of files) {
    const key = pairKey(f);
    let group = byKey.get(key);
    if (!group) byKey.set(key, (group = { tests: [], sources: [] }));
    (isTestFile(f) ? group.tests : group.sources).push(f);
  }
  const pairs = new Map<string, string[]>();
  for (const { tests, sources } of byKey.values()) {
    if (tests.length === 0 || sources.length === 0) continue;
    for (const t of tests) pairs.set(t, [...sources]);
    for (const s of sources) pairs.set(s, [...tests]);
  }
  return pairs;
}

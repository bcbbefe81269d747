/**
 * jest reporter: for each test file, one line per group of tests skipped because a tool is missing here (see
 * test/helpers/needs.ts), and the sum of them with what to install, which jest's global teardown
 * (test/helpers/print-skipped.js) prints last, after jest's own summary. So a run on a fresh machine says plainly
 * what it did not test. Silent when nothing was skipped for a missing tool.
 */
import path from "node:path";
import process from "node:process";
import { NEEDS, parseSkipTitle, SKIPPED_SUMMARY } from "./skip-note.js";

/** The skipped tests of one file, grouped by the title that carries the skip (a describe's, or the test's own). */
function skippedGroups(fileResult) {
  const groups = new Map();
  for (const t of fileResult.testResults) {
    if (t.status !== "pending" && t.status !== "skipped") continue;
    const titles = [...t.ancestorTitles, t.title];
    const at = titles.findIndex((title) => parseSkipTitle(title) !== null);
    if (at < 0) continue;
    const key = titles.slice(0, at + 1).join(" › ");
    const group = groups.get(key) ?? { ...parseSkipTitle(titles[at]), name: key, tests: 0 };
    group.tests += 1;
    groups.set(key, group);
  }
  return [...groups.values()];
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export default class NeedsReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    /** need → number of tests skipped for it */
    this.counts = new Map();
  }

  onTestResult(_test, fileResult) {
    const file = path.relative(this.rootDir, fileResult.testFilePath);
    for (const group of skippedGroups(fileResult)) {
      this.counts.set(group.need, (this.counts.get(group.need) ?? 0) + group.tests);
      const name = group.name.replace(/ \[skipped: needs [^\]]*\]$/, "");
      process.stderr.write(
        `○ skipped ${plural(group.tests, "test", "tests")} of ${file} › ${name}: needs ${group.need}: ${group.why}\n`,
      );
    }
  }

  onRunComplete() {
    if (this.counts.size === 0) return;
    const parts = [...this.counts].map(
      ([need, n]) => `${plural(n, "test needs", "tests need")} ${NEEDS[need].tool} (${NEEDS[need].install})`,
    );
    // The reporter and the global teardown run in jest's main process, in the same realm.
    globalThis[SKIPPED_SUMMARY] =
      `Skipped for missing tools: ${parts.join(", ")}. Install them and re-run to test these too.`;
  }
}

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

// docs/architecture.md's one picture walks every webhook and every run through the files that carry them. It must
// name real files (a rename that forgets the doc fails here), and read top to bottom it must never return to a
// folder it has left — except the drivers, which host each stage (they take the event in and pick each job up).
const DOC = readFileSync("docs/architecture.md", "utf8");
/** The drivers: the App and the Action host the route; every other folder of src/ is a step of it. */
const HOSTS = ["app", "action"];

/** Every `src/…` path the text names (files, and folders written with a trailing slash), in order. */
export function srcPaths(text: string): string[] {
  return [...text.matchAll(/\bsrc\/[\w./-]*[\w/]/g)].map((m) => m[0].replace(/[.]$/, ""));
}

/** The picture: the first code block of the "Request path" section. */
function picture(doc: string): string {
  const section = doc.split(/^## /m).find((s) => s.startsWith("Request path"));
  const block = section && /```\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("docs/architecture.md has no picture under '## Request path'");
  return block;
}

/**
 * The step a file belongs to: its top folder of src/ (a folder's own subfolders, like triage's `act/`, are part of
 * it), except that each phase of a run (`run/prepare`, `run/code`, `run/publish`, `run/report`) is a step of its
 * own, between which the run calls down into other folders.
 */
function stepOf(file: string): string {
  const parts = path.posix.dirname(file.replace(/^src\//, "")).split("/");
  if (parts[0] === ".") return "(src root)";
  return parts[0] === "run" && parts[1] ? `run/${parts[1]}` : parts[0]!;
}

/** Each folder the route comes back to after leaving it, as `folder (after …)`; the hosts are not steps. */
export function returns(paths: string[]): string[] {
  const left = new Set<string>();
  const found: string[] = [];
  let current: string | null = null;
  for (const p of paths) {
    const folder = stepOf(p);
    if (HOSTS.includes(folder)) continue;
    if (folder === current) continue;
    if (left.has(folder)) found.push(`${folder} (again at ${p}, after ${current})`);
    if (current) left.add(current);
    current = folder;
  }
  return found;
}

describe("docs/architecture.md's picture", () => {
  it("names only files and folders of src/ that exist", () => {
    const named = srcPaths(DOC);
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter((p) => !existsSync(p))).toEqual([]);
  });

  it("walks the route down once: no folder is entered again after the picture has left it", () => {
    const paths = srcPaths(picture(DOC)).filter((p) => p.endsWith(".ts"));
    expect(paths.length).toBeGreaterThan(40);
    expect(returns(paths)).toEqual([]);
  });

  it("names the entry, the edge, triage, the run's phases and the report", () => {
    const named = srcPaths(picture(DOC));
    for (const p of [
      "src/security/webhook-intake.ts",
      "src/edge/parse-webhook.ts",
      "src/edge/parse-action-event.ts",
      "src/triage/triage-event.ts",
      "src/compose/compose-run.ts",
      "src/run/run-job.ts",
      "src/run/prepare/prepare-checkout.ts",
      "src/run/code/code-phase.ts",
      "src/run/publish/publish-result.ts",
      "src/run/report/report-outcome.ts",
      "src/action/action-engine.ts",
    ])
      expect(named).toContain(p);
  });

  it("would catch a return and a missing file", () => {
    expect(returns(["src/edge/a.ts", "src/app/b.ts", "src/edge/c.ts", "src/triage/act/d.ts", "src/edge/e.ts"])).toEqual(
      ["edge (again at src/edge/e.ts, after triage)"],
    );
    expect(returns(["src/run/run-job.ts", "src/run/code/a.ts", "src/coder/b.ts", "src/run/publish/c.ts"])).toEqual([]);
    expect(srcPaths("see src/run/no-such-file.ts.").filter((p) => !existsSync(p))).toEqual(["src/run/no-such-file.ts"]);
  });
});

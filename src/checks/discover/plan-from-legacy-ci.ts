import { classifyCommand, PRINT_ONLY, splitScript } from "./classify-command.js";
import { resolveVersion } from "./resolve-version.js";
import { emptyPlan, type CheckPlan, type RepoReader } from "./types.js";
import { code, obj, parseYamlMapping, type Obj } from "./workflow-yaml.js";

const DEPLOYS = /deploy|publish|release|pages\b/i;
/** Top-level keys of `.gitlab-ci.yml` that are not jobs. */
const GITLAB_RESERVED = new Set([
  "image",
  "services",
  "stages",
  "types",
  "before_script",
  "after_script",
  "variables",
  "cache",
  "include",
  "default",
  "workflow",
  "pages",
]);

const lines = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]).flatMap((x) =>
    typeof x === "string" ? splitScript(x) : [],
  );

/**
 * The check commands of the CI files GitHub Actions replaced: `.travis.yml` (`install`/`before_script`/`script`, and
 * Travis's defaults for Node: `npm install`, `npm test`), `.circleci/config.yml` (each job's `run` steps) and
 * `.gitlab-ci.yml` (each job's `before_script`/`script`). Read after the workflows, for what they left empty.
 */
export async function planFromLegacyCi(reader: RepoReader): Promise<CheckPlan[]> {
  const plans: CheckPlan[] = [];
  const files = [
    [".travis.yml", travis],
    [".circleci/config.yml", circle],
    [".gitlab-ci.yml", gitlab],
  ] as const;
  // Read together: in the App each read is a GitHub round trip, and one after another they were the plan's longest wait.
  const texts = await Promise.all(files.map(([file]) => reader.read(file)));
  for (const [i, [file, read]] of files.entries()) {
    const text = texts[i] ?? null;
    if (text === null) continue;
    const parsed = parseYamlMapping(text);
    const plan = emptyPlan();
    if (!parsed.ok) plan.excluded.push({ what: file, why: parsed.why });
    else read(parsed.doc, file, plan);
    plans.push(plan);
  }
  return plans;
}

/** One job's commands, classified as in a workflow: unrecognised commands before the first check are setup. */
function addJob(plan: CheckPlan, job: string, commands: { command: string; setup?: boolean }[]): void {
  let checked = false;
  for (const { command, setup } of commands) {
    const cls = setup ? ({ kind: "setup" } as const) : classifyCommand(command);
    const what = `${code(command)} (${job})`;
    if (cls.kind === "exclude" || cls.kind === "print") {
      plan.excluded.push({ what, why: "why" in cls ? cls.why : PRINT_ONLY });
      continue;
    }
    if (cls.kind === "unknown" && checked) continue;
    const bucket = cls.kind === "unknown" ? "setup" : cls.kind;
    if (bucket !== "setup") checked = true;
    if (!plan[bucket].some((c) => c.command === command)) plan[bucket].push({ command, source: job });
  }
}

function travis(doc: Obj, file: string, plan: CheckPlan): void {
  const node = doc.language === "node_js";
  const first = (v: unknown) => String((Array.isArray(v) ? v[0] : v) ?? "");
  if (node && doc.node_js !== undefined) plan.toolchain.node = resolveVersion("node", first(doc.node_js));
  if (doc.language === "python" && doc.python !== undefined)
    plan.toolchain.python = resolveVersion("python", first(doc.python));
  if (doc.language === "go" && doc.go !== undefined) plan.toolchain.go = resolveVersion("go", first(doc.go));
  const install = lines(doc.install);
  const script = lines(doc.script);
  addJob(plan, file, [
    ...[...lines(doc.before_install), ...(install.length || !node ? install : ["npm install"])].map((command) => ({
      command,
      setup: true,
    })),
    ...lines(doc.before_script).map((command) => ({ command, setup: true })),
    ...(script.length || !node ? script : ["npm test"]).map((command) => ({ command })),
  ]);
}

function circle(doc: Obj, file: string, plan: CheckPlan): void {
  for (const [id, raw] of Object.entries(obj(doc.jobs))) {
    const where = `${file} job ${id}`;
    if (DEPLOYS.test(id)) {
      plan.excluded.push({ what: where, why: "deploys, publishes or releases" });
      continue;
    }
    const commands: { command: string }[] = [];
    for (const step of Array.isArray(obj(raw).steps) ? (obj(raw).steps as unknown[]) : []) {
      const run = typeof step === "object" && step !== null ? obj(step).run : undefined;
      const text = typeof run === "string" ? run : obj(run).command;
      if (typeof text === "string") commands.push(...lines(text).map((command) => ({ command })));
      // CircleCI's Node orb: its install step is the lockfile's install.
      if (step === "node/install-packages") commands.push({ command: "npm ci" });
    }
    addJob(plan, where, commands);
  }
}

function gitlab(doc: Obj, file: string, plan: CheckPlan): void {
  const defaults = obj(doc.default);
  const globalBefore = lines(doc.before_script ?? defaults.before_script);
  for (const [id, raw] of Object.entries(doc)) {
    if (GITLAB_RESERVED.has(id) || id.startsWith(".")) continue;
    const job = obj(raw);
    if (job.script === undefined) continue;
    const where = `${file} job ${id}`;
    if (DEPLOYS.test(`${id} ${String(job.stage ?? "")}`)) {
      plan.excluded.push({ what: where, why: "deploys, publishes or releases" });
      continue;
    }
    addJob(plan, where, [
      ...lines(job.before_script ?? globalBefore).map((command) => ({ command, setup: true })),
      ...lines(job.script).map((command) => ({ command })),
    ]);
  }
}

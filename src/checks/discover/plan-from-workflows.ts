import { interpolate, knownFalse, UNKNOWN, type ExprContext, type ExprValue } from "./evaluate-expression.js";
import { pickMatrix } from "./pick-matrix.js";
import { emptyPlan, type CheckPlan, type RepoReader } from "./types.js";
import { MAX_DEPTH, walkStep, type Bucket, type Item } from "./walk-step.js";
import { code, envOf, obj, parseYamlMapping, workflowEvents, type Obj } from "./workflow-yaml.js";

const MAX_WORKFLOW_FILES = 30;

/**
 * The check commands in the repository's GitHub Actions workflows (`.github/workflows/*.yml` of the revision the
 * reader serves — the default branch). See README "Which checks run" for the rules: which jobs, which steps, what is left out.
 */
export async function planFromWorkflows(reader: RepoReader): Promise<CheckPlan> {
  const plan = emptyPlan();
  const files = (await reader.list(".github/workflows"))
    .filter((f) => /\.ya?ml$/i.test(f))
    .sort()
    .slice(0, MAX_WORKFLOW_FILES);
  const seen = new Set<string>();
  // Every workflow file is read at once (in the App each read is a GitHub round trip), then walked in name order.
  const texts = await Promise.all(files.map((name) => reader.read(`.github/workflows/${name}`)));
  for (const [i, name] of files.entries()) {
    const file = `.github/workflows/${name}`;
    const text = texts[i] ?? null;
    if (text === null) continue;
    const parsed = parseYamlMapping(text);
    if (!parsed.ok) {
      plan.excluded.push({ what: file, why: parsed.why });
      continue;
    }
    const events = workflowEvents(parsed.doc);
    if (!events.some((e) => e === "push" || e === "pull_request")) {
      // Reusable workflows are read where a job calls them; other triggers never check a change.
      if (!events.includes("workflow_call"))
        plan.excluded.push({
          what: `${file} (on ${events.length ? events.join(", ") : "no event"})`,
          why: "runs neither on push nor on pull_request",
        });
      continue;
    }
    await walkWorkflow(reader, plan, seen, { file, doc: parsed.doc, inputs: {}, via: "", depth: 0 });
  }
  return plan;
}

interface WorkflowVisit {
  file: string;
  doc: Obj;
  inputs: Record<string, ExprValue>;
  /** ` (called by … job …)` for a reusable workflow. */
  via: string;
  depth: number;
}

async function walkWorkflow(
  reader: RepoReader,
  plan: CheckPlan,
  seen: Set<string>,
  visit: WorkflowVisit,
): Promise<void> {
  const { file, doc } = visit;
  const baseCtx: ExprContext = { inputs: visit.inputs, runner: { os: "Linux", arch: "X64" } };
  const wfEnv = envOf(doc.env, baseCtx);
  const wfDir = obj(obj(obj(doc.defaults).run))["working-directory"];
  for (const [jobId, rawJob] of Object.entries(obj(doc.jobs))) {
    const job = obj(rawJob);
    const where = `${file} job ${jobId}${visit.via}`;
    const label = String(job.name ?? jobId);
    if (/deploy|publish|release|pages\b|\bcd\b/i.test(`${jobId} ${typeof job.name === "string" ? job.name : ""}`)) {
      plan.excluded.push({ what: where, why: "deploys, publishes or releases" });
      continue;
    }
    if (job.environment) {
      const env = typeof job.environment === "string" ? job.environment : String(obj(job.environment).name ?? "");
      plan.excluded.push({ what: where, why: `deploys to the environment \`${env}\`` });
      continue;
    }
    if (job.services && Object.keys(obj(job.services)).length) {
      plan.excluded.push({
        what: where,
        why: `needs services the bot does not start (${Object.keys(obj(job.services)).join(", ")})`,
      });
      continue;
    }
    const strategy = obj(job.strategy);
    const picked = pickMatrix(strategy.matrix, baseCtx);
    if (!picked.ok) {
      plan.excluded.push({ what: where, why: picked.why });
      continue;
    }
    const ctx: ExprContext = { ...baseCtx, matrix: picked.values, env: wfEnv, strategy: {} };
    if (knownFalse(job.if, ctx)) continue;
    const runsOn = interpolate(JSON.stringify(job["runs-on"] ?? "ubuntu-latest"), ctx);
    if (runsOn.ok && /windows|macos/i.test(runsOn.text) && !/ubuntu|linux/i.test(runsOn.text)) {
      plan.excluded.push({
        what: where,
        why: `runs on ${runsOn.text.replace(/"/g, "")}; the bot runs commands on Linux`,
      });
      continue;
    }
    if (typeof job.uses === "string") {
      await callReusable(reader, plan, seen, { caller: visit, jobId, job, ctx, where });
      continue;
    }
    const env = { ...wfEnv, ...envOf(job.env, ctx) };
    const jobCtx: ExprContext = { ...ctx, env };
    const container = job.container;
    const image = typeof container === "string" ? container : obj(container).image;
    if (typeof image === "string" && !plan.image) {
      const name = interpolate(image, jobCtx);
      if (name.ok && name.text) plan.image = { name: name.text, source: where };
      else if (!name.ok)
        plan.excluded.push({
          what: `the container of ${where}`,
          why: `its image ${code(image)} uses an expression only GitHub Actions can resolve`,
        });
    }
    const dir = obj(obj(job.defaults).run)["working-directory"] ?? wfDir;
    const items: Item[] = [];
    const mark = plan.excluded.length;
    const steps = Array.isArray(job.steps) ? job.steps : [];
    for (let i = 0; i < steps.length; i++) {
      await walkStep(reader, plan, items, {
        step: obj(steps[i]),
        ctx: jobCtx,
        env,
        dir,
        source: `${where}, step ${i + 1}`,
        depth: visit.depth,
      });
    }
    const checks = addJobItems(plan, seen, items, `${where}${label !== jobId ? ` (${label})` : ""}`);
    keepUsefulExclusions(plan, mark, checks);
  }
}

async function callReusable(
  reader: RepoReader,
  plan: CheckPlan,
  seen: Set<string>,
  call: { caller: WorkflowVisit; jobId: string; job: Obj; ctx: ExprContext; where: string },
): Promise<void> {
  const uses = String(call.job.uses);
  if (!uses.startsWith("./")) {
    plan.excluded.push({ what: call.where, why: `calls the workflow ${code(uses)} of another repository` });
    return;
  }
  const file = uses.slice(2).split("@")[0]!; // split always gives a first part
  const text = call.caller.depth < MAX_DEPTH ? await reader.read(file) : null;
  const parsed = text === null ? null : parseYamlMapping(text);
  if (!parsed?.ok) {
    plan.excluded.push({
      what: call.where,
      why: `calls ${code(file)}, which ${parsed === null ? "could not be read" : parsed.ok ? "" : parsed.why}`,
    });
    return;
  }
  const declared = obj(obj(obj(parsed.doc.on).workflow_call).inputs);
  const inputs: Record<string, ExprValue> = {};
  for (const [k, spec] of Object.entries(declared)) {
    const d = obj(spec).default;
    if (d !== undefined)
      inputs[k] = typeof d === "string" ? (interpolate(d, call.ctx).ok ? d : UNKNOWN) : (d as ExprValue);
  }
  for (const [k, v] of Object.entries(obj(call.job.with))) {
    const text = typeof v === "string" ? interpolate(v, call.ctx) : { ok: true as const, text: v };
    inputs[k] = text.ok ? (text.text as ExprValue) : UNKNOWN;
  }
  await walkWorkflow(reader, plan, seen, {
    file,
    doc: parsed.doc,
    inputs,
    via: ` (called by ${call.where.replace(/ \(called by .*$/, "")})`,
    depth: call.caller.depth + 1,
  });
}

/**
 * What a job left out is listed only where it tells the reader something: in a job without checks, only the would-be
 * checks (a test step that needs a secret; the job's own line says the rest); in a job with checks, not the actions
 * that only move files or report (upload-artifact, coverage services).
 */
function keepUsefulExclusions(plan: CheckPlan, mark: number, jobHasChecks: boolean): void {
  const mine = plan.excluded.splice(mark);
  plan.excluded.push(
    ...mine.filter((e) =>
      jobHasChecks
        ? e.wouldCheck !== false || !e.why.startsWith("an action, not a shell command")
        : e.wouldCheck !== false,
    ),
  );
}

/**
 * A job's commands go into the plan only when it runs a lint or test command. Commands the bot does not recognise
 * count as setup before the job's first check (`cp .env.example .env`) and are left out after it (reports, clean-up).
 */
function addJobItems(plan: CheckPlan, seen: Set<string>, items: Item[], job: string): boolean {
  const first = items.findIndex((i) => i.kind === "lint" || i.kind === "test");
  if (first < 0) {
    if (items.length) plan.excluded.push({ what: job, why: "runs no lint or test command" });
    return false;
  }
  items.forEach((item, index) => {
    if (item.kind === "unknown" && index > first) {
      plan.excluded.push({
        what: `${code(item.cmd.command)} (${item.cmd.source})`,
        why: "runs after the checks and is not one (a report or clean-up)",
      });
      return;
    }
    const bucket: Bucket = item.kind === "unknown" ? "setup" : item.kind;
    const install = bucket === "setup" ? installKey(item.cmd.command) : null;
    const key = `${bucket}\u0000${item.cmd.cwd ?? ""}\u0000${install ?? item.cmd.command}`;
    if (seen.has(key)) {
      // The same install in another job (`npm install --ignore-scripts` for lint, `npm install` for tests) runs
      // once: the plainest form, which does what both jobs need.
      const at = install
        ? plan.setup.findIndex((c) => (c.cwd ?? "") === (item.cmd.cwd ?? "") && installKey(c.command) === install)
        : -1;
      if (at >= 0 && item.cmd.command.length < plan.setup[at]!.command.length) plan.setup[at] = item.cmd;
      return;
    }
    seen.add(key);
    plan[bucket].push(item.cmd);
  });
  return true;
}

/**
 * What a setup command installs, flags aside: `npm ci` and `npm install --ignore-scripts` install the same
 * dependencies, `pip install -r requirements.txt` with or without `-U` the same file; null for anything else.
 */
export function installKey(command: string): string | null {
  const words = command
    .trim()
    .replace(/^python3?\s+-m\s+/, "")
    .split(/\s+/);
  const args = words.filter((w) => !w.startsWith("-"));
  const [tool = "", sub = ""] = args;
  if (
    /^(?:npm|pnpm|yarn|bun)$/.test(tool) &&
    (args.length === 1 || (/^(?:ci|install|i)$/.test(sub) && args.length === 2))
  )
    return `${tool} install`;
  if (/^(?:poetry|pdm|bundle|pipenv)$/.test(tool) && /^(?:install|sync)$/.test(sub)) return `${tool} install`;
  if (tool === "uv" && sub === "sync") return "uv sync";
  if (/^pip3?$/.test(tool) && sub === "install") return `pip install ${args.slice(2).sort().join(" ")}`;
  return null;
}

import { parse } from "yaml";
import { classifyCommand, splitScript } from "./classify-command.js";
import { exprText, interpolate, knownFalse, UNKNOWN, type ExprContext, type ExprValue } from "./evaluate-expression.js";
import { pickMatrix } from "./pick-matrix.js";
import { actionMeaning } from "./toolchain-of-action.js";
import { emptyPlan, type CheckPlan, type PlannedCommand, type RepoReader } from "./types.js";

type Bucket = "setup" | "lint" | "test";
type Item = { kind: Bucket | "unknown"; cmd: PlannedCommand };
type Obj = Record<string, unknown>;

const MAX_DEPTH = 3;
const MAX_WORKFLOW_FILES = 30;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const code = (s: string) => `\`${s.replace(/`/g, "'").replace(/\s+/g, " ").slice(0, 120)}\``;

/** Parse a YAML file the repository wrote; null with the reason when it is not a YAML mapping. */
export function parseYamlMapping(text: string): { ok: true; doc: Obj } | { ok: false; why: string } {
  try {
    const doc: unknown = parse(text, { maxAliasCount: 100, uniqueKeys: false });
    return doc && typeof doc === "object" && !Array.isArray(doc)
      ? { ok: true, doc: doc as Obj }
      : { ok: false, why: "is not a YAML mapping" };
  } catch (error) {
    return {
      ok: false,
      why: `is not valid YAML (${(error instanceof Error ? error.message : String(error)).split("\n")[0]})`,
    };
  }
}

/** The events a workflow runs on (`on:` as a word, a list or a mapping). */
export function workflowEvents(doc: Obj): string[] {
  const on = doc.on ?? doc["true"];
  if (typeof on === "string") return [on];
  if (Array.isArray(on)) return on.map(String);
  return Object.keys(obj(on));
}

/** Literal values of an `env:` mapping, expressions resolved where they can be (a secret stays unknown). */
function envOf(raw: unknown, ctx: ExprContext): Record<string, ExprValue> {
  const out: Record<string, ExprValue> = {};
  for (const [k, v] of Object.entries(obj(raw))) {
    const text = interpolate(String(v ?? ""), ctx);
    out[k] = text.ok ? text.text : UNKNOWN;
  }
  return out;
}

function inputsOf(raw: unknown, ctx: ExprContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(raw))) {
    const text = interpolate(String(v ?? ""), ctx);
    if (text.ok) out[k] = text.text;
  }
  return out;
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]*$/.test(s) && s ? s : `'${s.replace(/'/g, `'\\''`)}'`);

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
  for (const name of files) {
    const file = `.github/workflows/${name}`;
    const text = await reader.read(file);
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
          what: file,
          why: `runs on ${events.length ? events.map((e) => `\`${e}\``).join(", ") : "no event"}, not on push or pull_request`,
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
    addJobItems(plan, seen, items, `${where}${label !== jobId ? ` (${label})` : ""}`);
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
  const file = uses.slice(2).split("@")[0]!;
  const text = call.caller.depth < MAX_DEPTH ? await reader.read(file) : null;
  const parsed = text === null ? null : parseYamlMapping(text);
  if (!parsed?.ok) {
    plan.excluded.push({
      what: call.where,
      why: `calls ${code(file)}, which ${text === null ? "could not be read" : parsed!.ok ? "" : parsed!.why}`,
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

interface StepVisit {
  step: Obj;
  ctx: ExprContext;
  env: Record<string, ExprValue>;
  dir: unknown;
  source: string;
  depth: number;
}

async function walkStep(reader: RepoReader, plan: CheckPlan, items: Item[], visit: StepVisit): Promise<void> {
  const { step, source } = visit;
  if (knownFalse(step.if, visit.ctx)) return;
  const stepName = typeof step.name === "string" ? step.name : undefined;
  const secret = /\bsecrets\.([A-Za-z_][\w-]*)/.exec(JSON.stringify([step.run, step.env, step.with, step.if]));
  const what = (s: string) => `${code(s)} (${source})`;
  if (typeof step.uses === "string") {
    const uses = step.uses.trim();
    if (uses.startsWith("./")) return composite(reader, plan, items, visit, uses);
    const meaning = await actionMeaning(uses, inputsOf(step.with, visit.ctx), reader);
    if (meaning.kind === "silent") return;
    if (meaning.kind === "toolchain") {
      if (meaning.version && !(meaning.tool in plan.toolchain)) plan.toolchain[meaning.tool] = meaning.version;
      return;
    }
    plan.excluded.push({
      what: what(`uses: ${uses}`),
      why: secret
        ? `needs secrets (\`secrets.${secret[1]}\`)`
        : "an action, not a shell command: only `run:` steps are run",
    });
    return;
  }
  if (typeof step.run !== "string") return;
  if (secret) {
    plan.excluded.push({ what: what(step.run), why: `needs secrets (\`secrets.${secret[1]}\`)` });
    return;
  }
  const shell = typeof step.shell === "string" ? step.shell.trim() : "";
  if (shell && !/^(?:bash|sh)\b/.test(shell)) {
    plan.excluded.push({ what: what(step.run), why: `runs with the shell \`${shell}\`` });
    return;
  }
  const env = { ...visit.env, ...envOf(step.env, visit.ctx) };
  const ctx = { ...visit.ctx, env };
  const rawDir = step["working-directory"] ?? visit.dir;
  let cwd: string | undefined;
  if (rawDir !== undefined && rawDir !== null) {
    const d = interpolate(String(rawDir), ctx);
    const norm = d.ok ? normaliseDir(d.text) : null;
    if (norm === null) {
      plan.excluded.push({
        what: what(step.run),
        why: `its working-directory ${code(String(rawDir))} is not a folder inside the repository the bot can resolve`,
      });
      return;
    }
    cwd = norm || undefined;
  }
  const lines = splitScript(step.run);
  for (let j = 0; j < lines.length; j++) {
    const lineSource = lines.length > 1 ? `${source}, line ${j + 1}` : source;
    const resolved = interpolate(lines[j]!, ctx);
    if (!resolved.ok) {
      plan.excluded.push({
        what: `${code(lines[j]!)} (${lineSource})`,
        why: `uses ${code(resolved.unresolved)}, which only GitHub Actions can resolve`,
      });
      continue;
    }
    const command = withEnv(resolved.text, env);
    if (!command.ok) {
      plan.excluded.push({ what: `${code(resolved.text)} (${lineSource})`, why: command.why });
      continue;
    }
    const cls = classifyCommand(resolved.text, stepName);
    if (cls.kind === "exclude") {
      plan.excluded.push({ what: `${code(resolved.text)} (${lineSource})`, why: cls.why });
      continue;
    }
    items.push({ kind: cls.kind, cmd: { command: command.text, source: lineSource, ...(cwd ? { cwd } : {}) } });
  }
}

async function composite(
  reader: RepoReader,
  plan: CheckPlan,
  items: Item[],
  visit: StepVisit,
  uses: string,
): Promise<void> {
  const dir = normaliseDir(uses);
  const paths = dir === null ? [] : [`${dir}/action.yml`, `${dir}/action.yaml`];
  let text: string | null = null;
  let file = "";
  if (visit.depth < MAX_DEPTH) {
    for (const p of paths) {
      text = await reader.read(p);
      file = p;
      if (text !== null) break;
    }
  }
  const parsed = text === null ? null : parseYamlMapping(text);
  const runs = parsed?.ok ? obj(parsed.doc.runs) : {};
  if (!parsed?.ok || runs.using !== "composite") {
    const why =
      text === null
        ? "could not be read"
        : !parsed?.ok
          ? parsed!.why
          : `is a \`${String(runs.using)}\` action, not a composite one: only shell steps are run`;
    plan.excluded.push({ what: `${code(`uses: ${uses}`)} (${visit.source})`, why: `the local action ${why}` });
    return;
  }
  const inputs: Record<string, ExprValue> = {};
  for (const [k, spec] of Object.entries(obj(parsed.doc.inputs))) {
    const d = obj(spec).default;
    if (d !== undefined) inputs[k] = typeof d === "string" ? d : (d as ExprValue);
  }
  for (const [k, v] of Object.entries(inputsOf(visit.step.with, visit.ctx))) inputs[k] = v;
  const steps = Array.isArray(runs.steps) ? runs.steps : [];
  for (let i = 0; i < steps.length; i++) {
    await walkStep(reader, plan, items, {
      step: obj(steps[i]),
      ctx: { ...visit.ctx, inputs },
      env: visit.env,
      dir: undefined,
      source: `${file} step ${i + 1}, from ${visit.source}`,
      depth: visit.depth + 1,
    });
  }
}

/** A repo-relative folder without `./` and trailing `/` ("" for the root), or null when it leaves the repository. */
function normaliseDir(raw: string): string | null {
  const parts: string[] = [];
  for (const part of raw.trim().replace(/\\/g, "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." || part.startsWith("$") || part.startsWith("~")) return null;
    parts.push(part);
  }
  return raw.trim().startsWith("/") ? null : parts.join("/");
}

/**
 * The command with the workflow's `env:` set in front (`NODE_OPTIONS=--max-old-space-size=4096 npm test`), as the
 * runner would give it; a variable only GitHub Actions knows (a secret) refuses a command that names it and is
 * left out of the others.
 */
function withEnv(
  command: string,
  env: Record<string, ExprValue>,
): { ok: true; text: string } | { ok: false; why: string } {
  const assignments: string[] = [];
  for (const k of Object.keys(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) continue;
    const v = exprText(env[k]!);
    const used = new RegExp(`\\$(?:${k}\\b|\\{${k}[}:])`).test(command);
    if (v === null && used) return { ok: false, why: `uses \`$${k}\`, whose value only GitHub Actions knows` };
    if (v !== null) assignments.push(`${k}=${shellQuote(v)}`);
  }
  if (!assignments.length) return { ok: true, text: command };
  // A script with control flow cannot take assignments in front of its first word.
  return {
    ok: true,
    text: command.includes("\n")
      ? `export ${assignments.join(" ")}\n${command}`
      : `${assignments.join(" ")} ${command}`,
  };
}

/**
 * A job's commands go into the plan only when it runs a lint or test command. Commands the bot does not recognise
 * count as setup before the job's first check (`cp .env.example .env`) and are left out after it (reports, clean-up).
 */
function addJobItems(plan: CheckPlan, seen: Set<string>, items: Item[], job: string): void {
  const first = items.findIndex((i) => i.kind === "lint" || i.kind === "test");
  if (first < 0) {
    if (items.length) plan.excluded.push({ what: job, why: "runs no lint or test command" });
    return;
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
    const key = `${bucket}\u0000${item.cmd.cwd ?? ""}\u0000${item.cmd.command}`;
    if (seen.has(key)) return;
    seen.add(key);
    plan[bucket].push(item.cmd);
  });
}

import { classifyCommand, looksLikeCheck, PRINT_ONLY, splitScript } from "./classify-command.js";
import { exprText, interpolate, knownFalse, type ExprContext, type ExprValue } from "./evaluate-expression.js";
import { actionMeaning } from "./toolchain-of-action.js";
import type { CheckPlan, PlannedCommand, RepoReader } from "./types.js";
import { code, envOf, inputsOf, obj, parseYamlMapping, type Obj } from "./workflow-yaml.js";

export type Bucket = "setup" | "lint" | "test";
/** One command of a job's steps, classified; the job decides what goes into the plan (plan-from-workflows.ts). */
export type Item = { kind: Bucket | "unknown"; cmd: PlannedCommand };

/** How deep reusable workflows and local composite actions are followed. */
export const MAX_DEPTH = 3;

/** A step to read: its YAML, the expressions and `env:` in scope, the job's working directory, where it was found. */
export interface StepVisit {
  step: Obj;
  ctx: ExprContext;
  env: Record<string, ExprValue>;
  dir: unknown;
  source: string;
  depth: number;
}

/**
 * One step of a job or of a local composite action: an action that sets up a toolchain (recorded), a composite action
 * (its steps walked), or a `run:` script whose lines become classified items. What cannot run here is excluded, with why.
 */
export async function walkStep(reader: RepoReader, plan: CheckPlan, items: Item[], visit: StepVisit): Promise<void> {
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
      impliedByAction(uses, inputsOf(step.with, visit.ctx), visit, items);
      return;
    }
    plan.excluded.push({
      what: what(`uses: ${uses}`),
      why: secret
        ? `needs secrets (\`secrets.${secret[1]}\`)`
        : "an action, not a shell command: only `run:` steps are run",
      wouldCheck: /lint|test|check|clippy|fmt|format|mypy|ruff|eslint|typ(?:e|ing)|spell/i.test(
        `${uses.split("@")[0]!} ${stepName ?? ""}`,
      ),
    });
    return;
  }
  if (typeof step.run !== "string") return;
  if (secret) {
    plan.excluded.push({
      what: what(step.run),
      why: `needs secrets (\`secrets.${secret[1]}\`)`,
      wouldCheck: looksLikeCheck(step.run),
    });
    return;
  }
  const shell = typeof step.shell === "string" ? step.shell.trim() : "";
  if (shell && !/^(?:bash|sh)\b/.test(shell)) {
    plan.excluded.push({
      what: what(step.run),
      why: `runs with the shell \`${shell}\``,
      wouldCheck: looksLikeCheck(step.run),
    });
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
  // The step's name describes its main command: when a line classifies on its own (`make check`), the name does not
  // make its neighbours (`git diff --exit-code`) checks too.
  const named = lines.some((l) => !["unknown", "print"].includes(classifyCommand(l).kind)) ? undefined : stepName;
  for (const [j, line] of lines.entries()) {
    const lineSource = lines.length > 1 ? `${source}, line ${j + 1}` : source;
    const resolved = interpolate(line, ctx);
    if (!resolved.ok) {
      plan.excluded.push({
        what: `${code(line)} (${lineSource})`,
        why: `uses ${code(resolved.unresolved)}, which only GitHub Actions can resolve`,
        wouldCheck: looksLikeCheck(line),
      });
      continue;
    }
    const command = withEnv(resolved.text, env);
    if (!command.ok) {
      plan.excluded.push({
        what: `${code(resolved.text)} (${lineSource})`,
        why: command.why,
        wouldCheck: looksLikeCheck(resolved.text),
      });
      continue;
    }
    const cls = classifyCommand(resolved.text, named);
    if (cls.kind === "exclude" || cls.kind === "print") {
      plan.excluded.push({
        what: `${code(resolved.text)} (${lineSource})`,
        why: "why" in cls ? cls.why : PRINT_ONLY,
        wouldCheck: "why" in cls && looksLikeCheck(resolved.text),
      });
      continue;
    }
    items.push({ kind: cls.kind, cmd: { command: command.text, source: lineSource, ...(cwd ? { cwd } : {}) } });
  }
}

/**
 * What a setup action does besides installing a tool, which the plan must do itself: `ruby/setup-ruby` with
 * `bundler-cache: true` runs `bundle install`; `snok/install-poetry` with `virtualenvs-in-project: true` makes the
 * venv `.venv` and exports `VENV` for `source $VENV`.
 */
function impliedByAction(uses: string, withInputs: Record<string, string>, visit: StepVisit, items: Item[]): void {
  const name = uses.split("@")[0]!.toLowerCase();
  if ((name === "ruby/setup-ruby" || name === "ruby/setup-ruby-pkgs") && withInputs["bundler-cache"] === "true") {
    const dir = withInputs["working-directory"] ?? (typeof visit.dir === "string" ? visit.dir : "");
    const cwd = normaliseDir(dir);
    items.push({
      kind: "setup",
      cmd: {
        command: "bundle install",
        source: `implied by ${visit.source} (\`${name}\` with \`bundler-cache: true\` runs it)`,
        ...(cwd ? { cwd } : {}),
      },
    });
  }
  if (name === "snok/install-poetry" && withInputs["virtualenvs-in-project"] === "true") {
    visit.env.POETRY_VIRTUALENVS_IN_PROJECT = "true";
    visit.env.VENV = ".venv/bin/activate";
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
      parsed === null
        ? "could not be read"
        : !parsed.ok
          ? parsed.why
          : `is a \`${String(runs.using)}\` action, not a composite one: only shell steps are run`;
    plan.excluded.push({
      what: `${code(`uses: ${uses}`)} (${visit.source})`,
      why: `the local action ${why}`,
      wouldCheck: true,
    });
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
  for (const [k, value] of Object.entries(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) continue;
    const v = exprText(value);
    const used = new RegExp(`\\$(?:${k}\\b|\\{${k}[}:])`).test(command);
    if (v === null && used) return { ok: false, why: `uses \`$${k}\`, whose value only GitHub Actions knows` };
    if (v !== null) assignments.push(`${k}=${shellQuote(v)}`);
  }
  if (!assignments.length) return { ok: true, text: command };
  // Assignments in front of a command reach only its first simple command, after the shell has expanded its words:
  // `CC=clang make clean ; make` builds the second with the default compiler, and `CC=clang make X=$CC` passes an
  // empty X. The runner sets env: for the whole script, so anything beyond one plain command gets an `export` first.
  if (/[\n;&|$`()<>]/.test(command))
    return {
      ok: true,
      text: `export ${assignments.join(" ")}${command.includes("\n") ? "\n" : "; "}${command}`,
    };
  return { ok: true, text: `${assignments.join(" ")} ${command}` };
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]*$/.test(s) && s ? s : `'${s.replace(/'/g, `'\\''`)}'`);

import { Cron } from "croner";
import { z } from "zod";
import { isHostPattern } from "../egress/host-match.js";
import { DEFAULT_INSTRUCTIONS_TOKENS } from "./instructions-budget.js";
import { DEFAULT_CONTEXT_BUDGET } from "./context-budget.js";
import { repoBudgetSchema } from "./budget-schema.js";
import { EDIT_FORMAT_NAMES } from "../edits/types.js";

const PERMISSIONS = ["read", "triage", "write", "maintain", "admin"] as const;
export type Permission = (typeof PERMISSIONS)[number];

const commandList = z
  .union([z.string().min(1), z.array(z.string().min(1))])
  .transform((v) => (Array.isArray(v) ? v : [v]));
const cron = z.string().refine((value) => {
  try {
    new Cron(value, { paused: true }).stop();
    return true;
  } catch {
    // Croner's message names its internals; the refinement's message below says what to write instead.
    return false;
  }
}, 'must be a valid cron expression, e.g. "0 6 * * 1"');

/** An IANA time zone name croner accepts ("Europe/Berlin", "UTC"). */
const timezone = z.string().refine((value) => {
  try {
    new Cron("0 0 * * *", { paused: true, timezone: value }).nextRun();
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone, e.g. "Europe/Berlin" or "UTC"');

const tokens = (max: number) => z.number().int().min(0).max(max);

/** `.github/aider.yml`, every key optional; defaults are the documented ones (README "Configuration"). */
export const repoConfigSchema = z
  .object({
    model: z.string().min(1).optional(),
    weak_model: z.string().min(1).optional(),
    // `architect`: the model plans, then the editor model (`editor_model`, `editor_edit_format`) edits.
    edit_format: z.enum([...EDIT_FORMAT_NAMES, "architect"]).default("diff"),
    editor_model: z.string().min(1).optional(),
    editor_edit_format: z.enum(EDIT_FORMAT_NAMES).optional(),
    // Label-triggered issue runs post a plan for approval first.
    plan: z.boolean().default(false),
    map_tokens: z.number().int().min(0).max(65536).default(1024),
    // Prompt caching: each round of a run is read from the provider's cache (`off`: no cache hints are sent).
    cache: z.enum(["auto", "off"]).default("auto"),
    max_reflections: z.number().int().min(0).max(10).default(3),
    // Absent: found by discovery; an empty list (`lint: []`): none, and none discovered for that key.
    setup: commandList.optional(),
    lint: commandList.optional(),
    test: commandList.optional(),
    // Without setup/lint/test keys the bot finds the commands in the default branch's workflows and
    // manifests; `off` keeps only the built-in syntax check (and the commands named here).
    checks: z.enum(["auto", "off"]).default("auto"),
    baseline: z.enum(["auto", "off"]).default("auto"),
    auto_test: z.boolean().optional(),
    timeout: z.number().positive().max(180).default(20),
    command_timeout: z.number().positive().max(180).default(10),
    require_green_checks: z.boolean().default(false),
    allowed_models: z.array(z.string().min(1)).default([]),
    protected_paths: z.array(z.string().min(1)).default([".github/workflows/**"]),
    trigger: z
      .object({
        command: z
          .string()
          .regex(/^[A-Za-z][\w-]*$/, 'must be a single word like "aider"')
          .default("aider"),
        label: z.string().min(1).default("aider"),
        min_permission: z.enum(PERMISSIONS).default("write"),
        ask_permission: z.enum(PERMISSIONS).default("triage"),
        allowed_bots: z.array(z.number().int().positive()).default([]),
      })
      .strict()
      .default({
        command: "aider",
        label: "aider",
        min_permission: "write",
        ask_permission: "triage",
        allowed_bots: [],
      }),
    pull_request: z
      .object({ draft: z.boolean().default(true), branch_prefix: z.string().min(1).default("aider/") })
      .strict()
      .default({ draft: true, branch_prefix: "aider/" }),
    // Spend limits: per run, per pull request/issue, per repository per day and month; see budget-schema.
    budget: repoBudgetSchema.default({}),
    // Models tried in order when the model fails (429 past its retry-after bound, 5xx, timeouts, context too long).
    fallback_models: z.array(z.string().min(1)).max(5).optional(),
    // Tokens of pull-request context (diff, discussion, review threads, checks, earlier runs) per source and in total.
    // A source over its share is summarised or cut with a note, never dropped silently; 0 turns a source off.
    context: z
      .object({
        max_tokens: tokens(200_000).default(DEFAULT_CONTEXT_BUDGET.max_tokens),
        prior_runs: tokens(50_000).default(DEFAULT_CONTEXT_BUDGET.prior_runs),
        review_threads: tokens(100_000).default(DEFAULT_CONTEXT_BUDGET.review_threads),
        checks: tokens(50_000).default(DEFAULT_CONTEXT_BUDGET.checks),
        conversation: tokens(50_000).default(DEFAULT_CONTEXT_BUDGET.conversation),
        closing_issues: tokens(50_000).default(DEFAULT_CONTEXT_BUDGET.closing_issues),
        diff: tokens(200_000).default(DEFAULT_CONTEXT_BUDGET.diff),
        // The repository's instruction files (AGENTS.md…, `read:`) in each request, apart from the total above.
        instructions: tokens(50_000).default(DEFAULT_INSTRUCTIONS_TOKENS),
      })
      .strict()
      .default({ ...DEFAULT_CONTEXT_BUDGET, instructions: DEFAULT_INSTRUCTIONS_TOKENS }),
    // AGENTS.md, CONVENTIONS.md, CLAUDE.md, .github/copilot-instructions.md from the default branch;
    // false turns them off. `read:` files are always read (Aider's --read).
    instructions: z.boolean().default(true),
    read: z.array(z.string().min(1)).max(20).default([]),
    // Whether the model takes images; absent: the table of model families decides (src/llm/model-vision.ts).
    vision: z.boolean().optional(),
    // Resolving is off by default: whether a comment is addressed is the reviewer's call, and a resolved thread is
    // collapsed on GitHub, so a wrong "fixed" would hide the discussion. The bot always replies in the thread.
    reviews: z
      .object({ resolve_threads: z.boolean().default(false) })
      .strict()
      .default({ resolve_threads: false }),
    // Self-triggered CI fixes spend model budget without anyone asking: opt-in, and bounded per pull request.
    ci: z
      .object({ autofix: z.boolean().default(false), max_rounds: z.number().int().min(0).max(10).default(2) })
      .strict()
      .default({ autofix: false, max_rounds: 2 }),
    // Container mode: the image the repository's commands run in; else its devcontainer's, CI job's,
    // toolchain's, or the operator's default.
    // `network.allow`: hosts the sandbox's `registries` policy adds for this repository (names or `*.example.org`;
    // never an address). Read from the default branch like the rest of this file.
    sandbox: z
      .object({
        image: z.string().min(1).max(255).optional(),
        network: z
          .object({
            allow: z
              .array(
                z
                  .string()
                  .max(253)
                  .refine(isHostPattern, "must be a host name or *.wildcard (no address, port or scheme)"),
              )
              .max(100)
              .default([]),
          })
          .strict()
          .optional(),
      })
      .strict()
      .default({}),
    schedules: z
      .array(
        z
          .object({
            cron,
            message: z.string().min(1),
            files: z.array(z.string()).default([]),
            branch: z.string().optional(),
            // The cron's time zone (IANA, default UTC), and whether a tick runs while the last run's PR is open.
            timezone: timezone.optional(),
            stack: z.boolean().default(false),
          })
          .strict(),
      )
      .default([]),
    // The bot's commits are made by GitHub's API, which signs them (Verified); `git` pushes them unsigned.
    commit: z
      .object({ signing: z.enum(["api", "git"]).default("api") })
      .strict()
      .default({ signing: "api" }),
  })
  .strict();

export type RepoConfig = z.infer<typeof repoConfigSchema>;

export type ConfigResult =
  { ok: true; config: RepoConfig } | { ok: false; problems: { path: string; message: string }[] };

/**
 * Validate a parsed `.github/aider.yml` (null/undefined = no file = all defaults). Each problem names its key path,
 * e.g. `{ path: "test", message: "must be a string" }`.
 */
export function parseRepoConfig(raw: unknown): ConfigResult {
  const input = raw === null || raw === undefined ? {} : raw;
  if (typeof input !== "object" || Array.isArray(input))
    return { ok: false, problems: [{ path: "(file)", message: "must be a mapping of keys to values" }] };
  const { _extends: _ignored, ...rest } = input as Record<string, unknown>;
  const result = repoConfigSchema.safeParse(rest);
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => ({
      path: issue.path.join(".") || "(file)",
      message: describe(issue),
    })),
  };
}

function describe(issue: z.core.$ZodIssue): string {
  // The only unions are the command keys (setup, lint, test): one command or a list of them.
  if (issue.code === "invalid_union") return "must be a command or a list of commands";
  if (issue.code === "invalid_type") return `must be ${article(issue.expected)}`;
  if (issue.code === "unrecognized_keys")
    return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `\`${k}\``).join(", ")}`;
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map((v) => `\`${String(v)}\``).join(", ")}`;
  return issue.message;
}

function article(type: string): string {
  return type === "array" ? "a list" : type === "object" ? "a mapping" : `a ${type}`;
}

import { Cron } from "croner";
import { z } from "zod";
import { DEFAULT_CONTEXT_BUDGET } from "../context/types.js";
import { EDIT_FORMAT_NAMES } from "../edits/types.js";

const PERMISSIONS = ["read", "triage", "write", "maintain", "admin"] as const;
export type Permission = (typeof PERMISSIONS)[number];

const commandList = z.union([z.string().min(1), z.array(z.string().min(1))]).transform((v) => (Array.isArray(v) ? v : [v]));
const cron = z.string().refine((value) => {
  try {
    new Cron(value, { paused: true }).stop();
    return true;
  } catch {
    // Croner's message names its internals; the refinement's message below says what to write instead.
    return false;
  }
}, 'must be a valid cron expression, e.g. "0 6 * * 1"');

const tokens = (max: number) => z.number().int().min(0).max(max);

/** `.github/aider.yml`, every key optional; defaults are the documented ones (README "Configuration"). */
export const repoConfigSchema = z
  .object({
    model: z.string().min(1).optional(),
    weak_model: z.string().min(1).optional(),
    edit_format: z.enum(EDIT_FORMAT_NAMES).default("diff"),
    map_tokens: z.number().int().min(0).max(65536).default(1024),
    max_reflections: z.number().int().min(0).max(10).default(3),
    setup: commandList.default([]),
    lint: commandList.default([]),
    test: z.string().min(1).optional(),
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
      .default({ command: "aider", label: "aider", min_permission: "write", ask_permission: "triage", allowed_bots: [] }),
    pull_request: z
      .object({ draft: z.boolean().default(true), branch_prefix: z.string().min(1).default("aider/") })
      .strict()
      .default({ draft: true, branch_prefix: "aider/" }),
    budget: z.object({ max_tokens: z.number().int().positive().optional(), max_usd: z.number().positive().optional() }).strict().default({}),
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
      })
      .strict()
      .default({ ...DEFAULT_CONTEXT_BUDGET }),
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
    // Issue #34: the bot's commits are made by GitHub's API, which signs them (Verified); `git` pushes them unsigned.
    commit: z
      .object({ signing: z.enum(["api", "git"]).default("api") })
      .strict()
      .default({ signing: "api" }),
    schedules: z.array(z.object({ cron, message: z.string().min(1), files: z.array(z.string()).default([]), branch: z.string().optional() }).strict()).default([]),
  })
  .strict();

export type RepoConfig = z.infer<typeof repoConfigSchema>;

export type ConfigResult = { ok: true; config: RepoConfig } | { ok: false; problems: { path: string; message: string }[] };

/**
 * Validate a parsed `.github/aider.yml` (null/undefined = no file = all defaults). Each problem names its key path,
 * e.g. `{ path: "test", message: "must be a string" }`.
 */
export function parseRepoConfig(raw: unknown): ConfigResult {
  const input = raw === null || raw === undefined ? {} : raw;
  if (typeof input !== "object" || Array.isArray(input)) return { ok: false, problems: [{ path: "(file)", message: "must be a mapping of keys to values" }] };
  const { _extends: _ignored, ...rest } = input as Record<string, unknown>;
  const result = repoConfigSchema.safeParse(rest);
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => ({ path: issue.path.join(".") || "(file)", message: describe(issue) })),
  };
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") return `must be ${article(issue.expected)}`;
  if (issue.code === "unrecognized_keys") return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `\`${k}\``).join(", ")}`;
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map((v) => `\`${String(v)}\``).join(", ")}`;
  return issue.message;
}

function article(type: string): string {
  return type === "array" ? "a list" : type === "object" ? "a mapping" : `a ${type}`;
}

import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * Which other folders of src/ each folder may import: the layering of docs/architecture.md#layout, printed there as
 * the same table (test/architecture/layering.test.ts checks that the two agree, that the table has no cycle and that
 * every import in src/ keeps to it). Top to bottom: cli → app, action → compose → triage → report → run → context →
 * github → coder → the building blocks below it. A folder missing from a list is refused, so no upward import or
 * cycle can quietly appear. Root files of src/ (result.ts, format-number.ts) are leaves anyone may import.
 */
export const MAY_IMPORT = {
  cli: "*",
  app: [
    "compose",
    "edge",
    "triage",
    "report",
    "run",
    "context",
    "github",
    "coder",
    "commands",
    "config",
    "exec",
    "jobs",
    "llm",
    "metrics",
    "security",
    "spend",
    "workspace",
    "egress",
  ],
  action: [
    "compose",
    "edge",
    "triage",
    "report",
    "run",
    "context",
    "github",
    "coder",
    "commands",
    "config",
    "exec",
    "llm",
    "security",
    "workspace",
  ],
  compose: [
    "triage",
    "report",
    "run",
    "context",
    "github",
    "coder",
    "checks",
    "commands",
    "config",
    "edits",
    "exec",
    "jobs",
    "llm",
    "metrics",
    "repomap",
    "security",
    "spend",
    "treesitter",
    "workspace",
  ],
  triage: ["edge", "report", "run", "context", "github", "commands", "config", "jobs"],
  report: ["run", "context", "github", "coder", "checks", "config", "edits", "egress"],
  run: [
    "context",
    "github",
    "coder",
    "checks",
    "commands",
    "config",
    "edits",
    "exec",
    "jobs",
    "llm",
    "metrics",
    "repomap",
    "workspace",
  ],
  context: ["github", "coder", "checks", "commands", "config", "llm"],
  github: ["config", "security"],
  coder: ["checks", "edits", "exec", "llm", "repomap", "workspace"],
  checks: ["exec", "llm", "treesitter"],
  repomap: ["exec", "llm", "treesitter", "workspace"],
  workspace: ["edits", "exec", "security"],
  spend: ["config", "llm", "metrics"],
  jobs: ["exec"],
  llm: ["metrics", "security"],
  commands: ["config", "edits"],
  config: ["edits", "egress"],
  egress: ["exec"],
  edits: [],
  edge: [],
  exec: [],
  security: [],
  metrics: [],
  treesitter: [],
};

const FOLDERS = Object.keys(MAY_IMPORT);

/** Only the demo command may import the testkit (see testkitBoundary). */
const TESTKIT_PATTERN = {
  group: ["#testkit/*", "../testkit/**", "../../testkit/**", "../../../testkit/**"],
  message: "Only the demo command may import the testkit (docs/architecture.md#layout).",
};

/**
 * The no-restricted-imports rule refusing every folder `folder` may not import, and the testkit. One rule per file:
 * a later config block setting the same rule would replace these patterns, not add to them.
 */
function refuseOthers(folder, allowed) {
  const refused = allowed === "*" ? [] : FOLDERS.filter((f) => f !== folder && !allowed.includes(f));
  const layer = refused.length
    ? [
        {
          // Files sit one or two folders below src/ (edits/udiff/, context/fetch/…).
          group: refused.flatMap((f) => [`../${f}/**`, `../../${f}/**`]),
          message: `src/${folder}/ may import only ${allowed.join(", ") || "no other folder"} (docs/architecture.md#layout).`,
        },
      ]
    : [];
  return { "no-restricted-imports": ["error", { patterns: [...layer, TESTKIT_PATTERN] }] };
}

const layering = [
  { files: ["src/*.ts"], rules: { "no-restricted-imports": ["error", { patterns: [TESTKIT_PATTERN] }] } },
  ...Object.entries(MAY_IMPORT).map(([folder, allowed]) => ({
    files: [`src/${folder}/**/*.ts`],
    rules: refuseOthers(folder, allowed),
  })),
  // cli/ may import every folder; its demo command alone also reaches the testkit, through `#testkit/…`.
  { files: ["src/cli/demo-command.ts"], rules: { "no-restricted-imports": "off" } },
];

/**
 * The testkit (fake GitHub, scripted model, provider fakes, builders) stands beside src/: it imports nothing of the
 * app, so a fake never judges the app with the app's own code and builds on its own (tsconfig.testkit.json), and the
 * app reaches it only from the demo command, through `#testkit/…` (package.json "imports").
 */
const testkitBoundary = [
  {
    files: ["testkit/**/*.ts"],
    // The builders are test-only (not built, never shipped): they type what they build with the app's own types.
    ignores: ["testkit/builders/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["../src/**", "../../src/**", "#testkit/*"],
              message: "testkit/ may not import the app (src/): take what it needs as a parameter (docs/testing.md).",
            },
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "test/fixtures/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-control-regex": "off",
    },
  },
  // Issue #33: no function in src/ runs past 100 lines (test/architecture/code-shape.test.ts refuses `any` waved
  // through with a disable comment).
  { files: ["src/**/*.ts"], rules: { "max-lines-per-function": ["error", { max: 100 }] } },
  ...layering,
  ...testkitBoundary,
);

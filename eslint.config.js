import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * Which other folders of src/ each folder may import (docs/architecture.md#layout). A folder missing from a list is
 * refused, so the layering (cli → app → github → run → coder → workspace/checks/repomap → edits/llm/exec) cannot
 * quietly grow a new upward import or cycle.
 */
const MAY_IMPORT = {
  cli: "*",
  action: ["app", "coder", "commands", "config", "context", "exec", "github", "llm", "run", "security", "workspace"],
  app: [
    "coder",
    "commands",
    "config",
    "context",
    "exec",
    "github",
    "jobs",
    "llm",
    "metrics",
    "run",
    "security",
    "spend",
    "workspace",
  ],
  github: ["coder", "commands", "config", "context", "edits", "jobs", "run"],
  jobs: ["exec"],
  run: ["checks", "coder", "commands", "config", "context", "edits", "exec", "llm", "metrics", "repomap", "workspace"],
  context: ["checks", "coder", "commands", "config", "github", "jobs", "llm", "run"],
  coder: ["checks", "edits", "exec", "llm", "metrics", "repomap", "workspace"],
  checks: ["exec", "llm", "treesitter"],
  repomap: ["exec", "llm", "treesitter", "workspace"],
  workspace: ["edits", "exec", "security"],
  edits: [],
  llm: ["metrics", "security"],
  exec: ["jobs"],
  security: ["github"],
  commands: ["config", "edits"],
  config: ["context", "edits"],
  demo: ["exec"],
  treesitter: [],
  spend: ["config", "llm", "metrics"],
  metrics: [],
};
// Imports the table above allows that docs/architecture.md does not: known debts, listed so they stay visible.
// action → app, github ↔ context, context ↔ run, context → jobs/coder, exec → jobs, security → github,
// checks → llm, config → context.
const FOLDERS = Object.keys(MAY_IMPORT);

const layering = Object.entries(MAY_IMPORT)
  .filter(([, allowed]) => allowed !== "*")
  .map(([folder, allowed]) => {
    const refused = FOLDERS.filter((f) => f !== folder && !allowed.includes(f));
    return {
      files: [`src/${folder}/**/*.ts`],
      rules: {
        "no-restricted-imports": [
          "error",
          {
            patterns: [
              {
                // Files sit one or two folders below src/ (edits/udiff/, context/fetch/…).
                group: refused.flatMap((f) => [`../${f}/**`, `../../${f}/**`]),
                message: `src/${folder}/ may import only ${allowed.join(", ") || "no other folder"} (docs/architecture.md#layout).`,
              },
            ],
          },
        ],
      },
    };
  });

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
  ...layering,
);

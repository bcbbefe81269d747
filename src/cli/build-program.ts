import { Command, InvalidArgumentError, Option } from "commander";
import { EDIT_FORMAT_NAMES } from "../edits/types.js";

const collect = (value: string, previous: string[]): string[] => [...previous, value];
const int =
  (name: string) =>
  (value: string): number => {
    const n = Number(value);
    // Commander reports this as a usage error (exit 2) naming the option.
    if (!Number.isInteger(n) || n < 0)
      throw new InvalidArgumentError(`${name} must be a whole number, got "${value}".`);
    return n;
  };

/** The `aider-bot` command line: apply | run | map | checks | serve | worker | demo (docs/architecture.md#layout). Actions load lazily. */
export function buildProgram(): Command {
  const program = new Command("aider-bot")
    .description("Aider's edit loop for GitHub pull requests, and the same engine on a local checkout")
    .exitOverride()
    .showHelpAfterError();

  addEditCommands(program);
  addInspectCommands(program);
  addServiceCommands(program);
  return program;
}

/** `apply` and `run`: the edit engine and the edit loop on a local checkout. */
function addEditCommands(program: Command): void {
  program
    .command("apply")
    .description("parse an LLM answer and apply its edits to files under --root")
    .requiredOption("--root <dir>", "the checkout the edits apply to")
    .addOption(
      new Option("--edit-format <format>", "edit format of the answer").choices([...EDIT_FORMAT_NAMES]).default("diff"),
    )
    .option("--file <path>", "a file 'in the chat' (repeatable)", collect, [])
    .option("--dry-run", "parse and match, write nothing", false)
    .option("--json", "print one JSON object", false)
    .argument("[response]", "file with the answer, or - for stdin", "-")
    .exitOverride()
    .action(async (response: string, opts) => {
      const { applyCommand } = await import("./apply-command.js");
      process.exitCode = await applyCommand({ response, ...opts });
    });

  program
    .command("run")
    .description("one headless edit cycle (prompt → edits → lint/test → reflect → commit) on a local checkout")
    .requiredOption("--repo <dir>", "the git checkout")
    .requiredOption("-m, --message <text>", "the request")
    .option("--file <path>", "file to edit (repeatable)", collect, [])
    .option("--read <path>", "read-only reference file (repeatable)", collect, [])
    .addOption(new Option("--edit-format <format>").choices([...EDIT_FORMAT_NAMES]))
    .option("--model <name>", "model name at OPENAI_BASE_URL")
    .option("--weak-model <name>", "model for commit messages")
    .option("--lint-cmd <cmd>", "lint command (repeatable); edited files are appended", collect, [])
    .option("--test-cmd <cmd>", "test command")
    .addOption(
      new Option(
        "--checks <mode>",
        "auto: commands not named by a flag or .github/aider.yml are discovered from the checkout (see `aider-bot checks`); off: none discovered",
      ).choices(["auto", "off"]),
    )
    .option("--auto-test", "run the test commands after each edit round (default: when there is one)")
    .option("--no-auto-test", "do not run the test commands after each edit round")
    .option("--max-reflections <n>", "reflection rounds after the first answer", int("--max-reflections"), 3)
    .option("--map-tokens <n>", "repo map token budget (0 disables)", int("--map-tokens"), 1024)
    .option("--no-commit", "leave the changes uncommitted")
    .option("--no-instructions", "do not read AGENTS.md, CONVENTIONS.md, CLAUDE.md, .github/copilot-instructions.md")
    .option("--json", "print one JSON object", false)
    .exitOverride()
    .action(async (opts) => {
      const { runCommand } = await import("./run-command.js");
      process.exitCode = await runCommand(opts);
    });
}

/** `map`, `transcript`, `checks`: what the bot would see, sent or run (nothing is changed). */
function addInspectCommands(program: Command): void {
  program
    .command("map")
    .description("print the repo map")
    .requiredOption("--repo <dir>", "the checkout")
    .option("--map-tokens <n>", "token budget", int("--map-tokens"), 1024)
    .option("--file <path>", "file in the chat (excluded from the map, boosts its neighbours)", collect, [])
    .option("--mention <word>", "identifier or file the request mentions (repeatable)", collect, [])
    .option(
      "--threads <n>",
      "worker threads for parsing many files (default: cores − 1, at most 7; 0 for none)",
      int("--threads"),
    )
    .exitOverride()
    .action(async (opts) => {
      const { mapCommand } = await import("./map-command.js");
      process.exitCode = await mapCommand(opts);
    });

  program
    .command("transcript")
    .description(
      "print the stored transcript of a run of the app (what the model was sent and answered, edits, checks)",
    )
    .argument("<run-id>", "the run's id, as the status comment's transcript line names it")
    .option("--cache-dir <dir>", "the app's cache dir (default: AIDER_BOT_CACHE_DIR)")
    .exitOverride()
    .action(async (runId: string, opts: { cacheDir?: string }) => {
      const { transcriptCommand } = await import("./transcript-command.js");
      process.exitCode = await transcriptCommand({ runId, ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}) });
    });

  program
    .command("checks")
    .description(
      "print the lint/test/setup commands the bot would run on a checkout, and where each came from (runs nothing)",
    )
    .argument("[dir]", "the checkout", ".")
    .option("--json", "print one JSON object: setup, lint, test, toolchain, image, excluded", false)
    .exitOverride()
    .action(async (dir: string, opts: { json: boolean }) => {
      const { checksCommand } = await import("./checks-command.js");
      process.exitCode = await checksCommand({ dir, json: opts.json });
    });
}

/** `serve`, `worker`, `demo`, `action`: the App, its workers, the offline demo and the Action's step. */
function addServiceCommands(program: Command): void {
  program
    .command("serve")
    .description("run the GitHub App (same as npm start)")
    .exitOverride()
    .action(async () => {
      const { serveCommand } = await import("./serve-command.js");
      await serveCommand();
    });

  program
    .command("worker")
    .description("work jobs from the shared Redis queue (REDIS_URL, APP_ID, PRIVATE_KEY; no webhook secret)")
    .exitOverride()
    .action(async () => {
      const { workerCommand } = await import("./worker-command.js");
      await workerCommand();
    });

  program
    .command("demo")
    .description("offline end-to-end demonstration: app + fake GitHub + scripted model")
    .exitOverride()
    .action(async () => {
      const { demoCommand } = await import("./demo-command.js");
      process.exitCode = await demoCommand();
    });

  program
    .command("action")
    .description("one GitHub Actions step: handle the workflow's event like the App (see action.yml)")
    .exitOverride()
    .action(async () => {
      const { actionCommand } = await import("../action/action-command.js");
      process.exitCode = await actionCommand();
    });
}

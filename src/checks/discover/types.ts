/** One command the bot would run, and where it was found. */
export interface PlannedCommand {
  /** The shell command line, as the repository wrote it (expressions resolved). */
  command: string;
  /** Where it came from, e.g. `.github/workflows/ci.yml job test, step 3` or `package.json script "test"`. */
  source: string;
  /** Folder it runs in, relative to the repository root (a step's `working-directory`, a monorepo package). */
  cwd?: string;
  /** How and why it differs from CI's own line (a coverage wrapper taken off), for the plan and the status. */
  note?: string;
  /** What runs instead when the Python project runner it needs cannot run here (see {@link RunnerFallback}). */
  fallback?: RunnerFallback;
  /** A setup line that only installs these Python project runners (`pip install hatch`, an implied `uv` install). */
  installsRunners?: string[];
  /**
   * An implied setup step that installs a tool CI got from a setup action (`uv`, `poetry`): the tool and the pip
   * requirement. Where the sandbox keeps a per-repository tools shelf, the step is served from it (see
   * src/checks/tool-shelf.ts) instead of running `command` in the checkout.
   */
  tool?: ImpliedTool;
}

/** A Python tool an implied setup step installs for the user, and the pip requirement (`uv`, `poetry==1.8.3`). */
export interface ImpliedTool {
  name: string;
  requirement: string;
}

/**
 * A lint or test command run through a Python project runner (`uv run pytest tests/`, `uvx tox`, `hatch run cov`) and
 * what can stand in for it with the sandbox's own Python when that runner cannot be installed or is not there: the
 * repository's tests (or linter) run directly, with the packages the host has instead of the project's lock file.
 */
export interface RunnerFallback {
  /** The runner the command needs: `uv`, `tox`, `hatch`, … */
  runner: string;
  /** The command run instead, `python3 -m pytest tests/`; absent when nothing can stand in (`tox -e docs`). */
  command?: string;
  /** The module that must import in the sandbox for `command` to run: `pytest`, `flake8`. */
  module?: string;
}

/** Something the bot found and will not run, and why. */
export interface ExcludedCheck {
  what: string;
  why: string;
  /**
   * It looks like a lint or test (a test step that needs a secret, a lint action): worth listing even when its job
   * has no check the bot runs. Not part of the plan's JSON.
   */
  wouldCheck?: boolean;
}

/**
 * The check commands of a repository: what `aider-bot checks` prints, `/aider checks` posts and a run executes when
 * `.github/aider.yml` names no commands. `setup` runs once before the first check; `lint` and `test` after each edit.
 */
export interface CheckPlan {
  setup: PlannedCommand[];
  lint: PlannedCommand[];
  test: PlannedCommand[];
  /** Tool → version the repository asks for, e.g. `{ python: "3.12", node: "20" }`. */
  toolchain: Record<string, string>;
  /** A job's `container:` image: the image the commands expect to run in. */
  image?: { name: string; source: string };
  excluded: ExcludedCheck[];
}

/**
 * Read access to one revision of a repository: the default branch through the GitHub API in the App, a local
 * checkout through the confined reader in the CLI. Paths are repository-relative with forward slashes.
 */
export interface RepoReader {
  /** Entries of a folder ("" is the root): file names, folder names ending in "/". Empty when it does not exist. */
  list(dir: string): Promise<string[]>;
  /** A file's text, or null when it does not exist or cannot be read. */
  read(path: string): Promise<string | null>;
}

/** An empty plan. */
export function emptyPlan(): CheckPlan {
  return { setup: [], lint: [], test: [], toolchain: {}, excluded: [] };
}

import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { createCheckExec } from "../../src/app/create-check-exec.js";
import { readEnv } from "../../src/config/env.js";
import { createExec } from "../../src/exec/create-exec.js";
import type { Exec } from "../../src/exec/types.js";
import { runAppOnPullRequest, useAppPrRig } from "../helpers/app-pr-run.js";
import { describeWith } from "../helpers/needs.js";
import { testExec } from "../helpers/test-exec.js";

const block = (p: string, search: string, replace: string) =>
  `${p}\n\`\`\`\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n\`\`\`\n`;

/** A Python project whose CI runs its tests with `uv run`, uv coming from astral-sh/setup-uv. */
const FILES = {
  ".github/workflows/ci.yml": [
    "on: [pull_request]",
    "jobs:",
    "  test:",
    "    runs-on: ubuntu-latest",
    "    steps:",
    "      - uses: actions/checkout@v4",
    "      - uses: astral-sh/setup-uv@v6",
    "      - run: uv run pytest tests/",
    "",
  ].join("\n"),
  "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  "calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n",
  // test_sub fails on the default branch already: the base's run must name it too, through the same stand-in.
  "tests/test_calc.py":
    "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
  "tests/conftest.py": "import sys, os\n\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
};

/**
 * A real App run on a pull request whose CI test step is `uv run pytest tests/`, in bubblewrap with the network off:
 * the implied `pip install --user uv` cannot reach an index, so uv is not there. The run goes on past that install,
 * runs the host's `python3 -m pytest tests/` in its place (on the change and on the base alike), a new failing test
 * reaches the model, the one that fails on the base too does not, and the status says what ran instead and why.
 */
describeWith(
  ["bubblewrap", "pytest"],
  "a Python project runner that cannot be set up (real App run, bubblewrap)",
  () => {
    const rig = useAppPrRig("runner-stand-in-");
    let work: string;
    let checkExec: (Exec & { close?(): Promise<void> }) | undefined;
    beforeEach(async () => {
      // Under the project folder, not /tmp, which the sandbox replaces with a private one.
      work = await mkdtemp(path.join(process.cwd(), ".runner-stand-in-"));
    });
    afterEach(async () => {
      await checkExec?.close?.();
      await rm(work, { recursive: true, force: true });
    });

    it("runs `python3 -m pytest tests/` in place of `uv run pytest tests/`, reflects the new failure, and says so", async () => {
      const { fake, llm } = rig();
      const env = {
        AIDER_BOT_SANDBOX: "bubblewrap",
        AIDER_BOT_SANDBOX_NETWORK: "none",
        AIDER_BOT_WORK_DIR: path.join(work, "jobs"),
        AIDER_BOT_CACHE_DIR: path.join(work, "cache"),
      };
      checkExec = createCheckExec(
        readEnv({ PATH: process.env.PATH, ...env }),
        createExec({ sourceEnv: process.env }),
        pino({ level: "silent" }),
        { appDir: path.join(work, "app") },
      );
      // The first answer breaks add (a new failure); the second puts it back. sub stays as the base has it.
      llm.push(
        block("calc.py", "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a * b\n"),
        block("calc.py", "def add(a, b):\n    return a * b\n", "def add(a, b):\n    return a + b  # sum\n"),
        "fix: keep add a sum",
      );
      const outcome = await runAppOnPullRequest(
        { ...rig(), work },
        {
          files: FILES,
          config: { max_reflections: 2 },
          message: "tidy add in calc.py",
          exec: testExec({ sourceEnv: process.env }),
          checkExec,
          env,
        },
      );
      // The stand-in's failure reached the model: the new one (test_add), not the one the base has (test_sub).
      const sent = llm.requests.map((q) => JSON.stringify(q.body.messages.at(-1))).join("\n");
      expect(sent).toContain("test_add");
      // The base ran the same stand-in, so test_sub is told apart as the base's.
      expect(sent).toMatch(/failed on the default branch before this change too[^"]*test_sub/);
      expect(sent).toMatch(/python3 -m pytest tests\//);
      const repo = fake.state.repos.get("acme/widgets")!;
      const status = repo.comments.map((c) => c.body).join("\n---\n");
      expect(status).toContain("`uv run pytest tests/` could not run here (`uv` could not be installed:");
      expect(status).toContain(
        "ran `python3 -m pytest tests/` with the sandbox's Python instead — dependencies come from the host, not the project's lock file.",
      );
      expect(status).toContain("fails on the default branch too");
      expect(JSON.stringify(outcome)).toContain("changed");
    }, 240_000);
  },
);

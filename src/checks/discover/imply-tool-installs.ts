import type { CheckPlan, ImpliedTool, PlannedCommand } from "./types.js";

/** Python tools a plan may call that images often lack, and the package that installs each. */
const TOOLS: Record<string, string> = {
  uv: "uv",
  uvx: "uv",
  poetry: "poetry",
  pdm: "pdm",
  hatch: "hatch",
  tox: "tox",
  nox: "nox",
  pipenv: "pipenv",
};

/** Where `pip install --user` puts a tool's command. */
const USER_BIN = `PATH="$HOME/.local/bin:$PATH"`;

/** The first word a command runs, past `VAR=value` assignments and `cd dir &&` / `cd dir` lines. */
function toolOf(command: string): string | undefined {
  let c = command.trim();
  for (;;) {
    const before = c;
    c = c
      .replace(/^(?:export\s+)?(?:[A-Za-z_]\w*=(?:'[^']*'|"[^"]*"|\S*)\s+)+/, "")
      .replace(/^(?:cd|source|\.)\s+\S+\s*(?:&&|;|\n)\s*/, "")
      .replace(/^(?:export\s+[^\n]*|[A-Za-z_]\w*=\S*)\n/, "");
    if (c === before) break;
  }
  return /^[\w.-]+/.exec(c)?.[0];
}

/** Whether an earlier setup command installs `pkg` (`pip install tox`, `pipx install poetry`, `install-pdm.py`). */
function installs(command: string, pkg: string): boolean {
  return new RegExp(
    `\\b(?:pip3?|pipx|uv\\s+pip|uv\\s+tool)\\s+install\\b[^\\n]*[\\s'"]${pkg}(?:[=<>~\\['"\\s]|$)|install-${pkg}\\.py`,
  ).test(command);
}

/**
 * The plan with each Python tool it calls (`uv sync`, `poetry install`, `tox`, `hatch test`) installed first when the
 * image lacks it: the workflow got it from a setup action (`astral-sh/setup-uv`, `snok/install-poetry`) or the
 * runner's image, which the bot's sandbox does not have. The implied step installs it for the user (pinned to the
 * version the setup action names, if any) and says where the need came from; the commands that call the tool find
 * it in `~/.local/bin`.
 */
export function implyToolInstalls(plan: CheckPlan): void {
  const implied: PlannedCommand[] = [];
  const needs = new Set<string>();
  const all = [...plan.setup, ...plan.lint, ...plan.test];
  for (const cmd of all) {
    const tool = toolOf(cmd.command);
    const pkg = tool ? TOOLS[tool] : undefined;
    if (!pkg || needs.has(pkg)) continue;
    const earlier = plan.setup.slice(0, Math.max(0, plan.setup.indexOf(cmd)));
    if ((plan.setup.includes(cmd) ? earlier : plan.setup).some((s) => installs(s.command, pkg))) continue;
    needs.add(pkg);
    const version = plan.toolchain[pkg];
    const spec = version && /^\d+(?:\.\d+)*$/.test(version) ? `${pkg}==${version}` : pkg;
    implied.push({
      // Debian's Python refuses user installs unless told (PEP 668); a user install touches nothing else. One retry,
      // not pip's five with back-off: where the index cannot be reached (an egress allowlist without it, a host
      // offline) pip took ~10 s to give up, on the change's run and on the base's, before a stand-in could run.
      command: `${USER_BIN}; command -v ${pkg} >/dev/null 2>&1 || PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --user --retries 1 ${spec}`,
      source: `implied: \`${tool}\` is called by ${cmd.source}; installed when the image lacks it`,
      installsRunners: [pkg],
      tool: { name: pkg, requirement: spec },
    });
  }
  plan.setup = plan.setup.map((c) => {
    const tool = c.tool ? null : ciToolInstall(c.command);
    return tool ? { ...c, tool } : c;
  });
  if (!implied.length) return;
  const withPath = (c: PlannedCommand): PlannedCommand => {
    const tool = toolOf(c.command);
    if (!tool || !needs.has(TOOLS[tool] ?? "")) return c;
    return {
      ...c,
      command: c.command.includes("\n") ? `export ${USER_BIN}\n${c.command}` : `${USER_BIN} ${c.command}`,
    };
  };
  plan.setup = [...implied, ...plan.setup.map(withPath)];
  plan.lint = plan.lint.map(withPath);
  plan.test = plan.test.map(withPath);
}

/** pip's options that change nothing of what a runner's install leaves (its output, its cache, where it goes). */
const PLAIN_OPTIONS = new Set([
  "--upgrade",
  "-U",
  "--user",
  "-q",
  "--quiet",
  "--no-cache-dir",
  "--disable-pip-version-check",
  "--no-warn-script-location",
  "--progress-bar=off",
]);

/**
 * A CI setup line that only installs one Python project runner for the commands after it, with pip or pipx
 * (`python -m pip install --upgrade pip hatch`, `pipx install poetry`, `pip install tox==4.11.0`), as the tools
 * shelf's requirement; null for anything else: another package beside it, an option that could change what is
 * installed or from where (`-r`, `-e`, `--index-url`), a version range, shell syntax. Upgrading pip itself is left
 * out: it only served that install. Where the sandbox keeps a tools shelf the runner then comes from it (installed
 * once per repository, by a command no job can influence); elsewhere the line runs as CI wrote it.
 */
export function ciToolInstall(command: string): ImpliedTool | null {
  if (/[;&|<>$`\\(){}'"\n#*?]/.test(command)) return null;
  const words = command.trim().split(/\s+/);
  const start = /^python(?:3(?:\.\d+)?)?$/.test(words[0] ?? "") && words[1] === "-m" && words[2] === "pip" ? 3 : 1;
  const pipx = words[0] === "pipx";
  if (start === 1 && !pipx && !/^pip3?$/.test(words[0] ?? "")) return null;
  if (words[start] !== "install") return null;
  const named: string[] = [];
  for (const word of words.slice(start + 1)) {
    if (word.startsWith("-")) {
      if (!PLAIN_OPTIONS.has(word)) return null;
    } else if (pipx || !/^pip(?:==[\w.]+)?$/i.test(word)) named.push(word);
  }
  const only = named.length === 1 ? /^([A-Za-z][\w.-]*)(==\d+(?:\.\d+)*)?$/.exec(named[0]!) : null;
  const pkg = only?.[1]?.toLowerCase();
  if (!pkg || !Object.values(TOOLS).includes(pkg)) return null;
  return { name: pkg, requirement: `${pkg}${only?.[2] ?? ""}` };
}

import path from "node:path";
import type { ImpliedTool } from "./discover/types.js";

/**
 * Which setup commands may run before the model's edit, and what they read. A setup command may start while the
 * model writes only when its result cannot depend on the edit: it reads manifests (package.json and lockfiles,
 * requirement files, go.mod, Cargo.toml, Gemfile…) and never the repository's source, and runs none of the
 * repository's code. Anything this module does not recognise runs after the edit, as before. Pure: files come
 * through `read`.
 */

/** A setup command as the plan has it. */
export interface SetupCommand {
  command: string;
  /** Folder it runs in, relative to the checkout. */
  cwd?: string;
  /** An implied tool install (installed from the default branch's CI requirement, never from the checkout). */
  tool?: ImpliedTool;
}

/** A checkout file as the classification reads it: its text, null when it is not there, false when it cannot be read. */
export type ReadFile = (rel: string) => Promise<string | null | false>;

/** What an early setup command reads from the checkout: a change to any of it makes its early result stale. */
export interface SetupInputs {
  /** File names read in the command's folder or any folder above it (`package.json`, `.npmrc`, `go.mod`). */
  near: readonly string[];
  /** File names read wherever they are (a Cargo workspace's members, path dependencies: every `Cargo.toml`). */
  anywhere: readonly string[];
  /** Files by path from the checkout's root (a requirement file and the files it includes). */
  exact: readonly string[];
  /** Folders whose every file is an input (`.yarn/`, `.cargo/`). */
  under: readonly string[];
  /** Files whose creation or removal changes what is read, though their content does not (a crate's `src/lib.rs`). */
  appearing?: RegExp;
}

export type SetupVerdict = { early: true; inputs: SetupInputs } | { early: false; why: string };

/** A path the run changed: written, created or deleted. */
export interface FileChange {
  path: string;
  created?: boolean;
  deleted?: boolean;
}

/** Whether a change of the run's reaches what an early setup command read (then its result is not used). */
export function touchesInputs(inputs: SetupInputs, change: FileChange, cwd = ""): boolean {
  const p = path.posix.normalize(change.path);
  const dir = path.posix.dirname(p) === "." ? "" : path.posix.dirname(p);
  const name = path.posix.basename(p);
  const base = cwd ? path.posix.normalize(cwd).replace(/\/$/, "") : "";
  if (inputs.exact.includes(p)) return true;
  if (inputs.anywhere.includes(name)) return true;
  if (inputs.under.some((u) => p === u || p.startsWith(`${u}/`))) return true;
  // `dir` is the command's folder or one above it.
  if (inputs.near.includes(name) && (dir === base || dir === "" || base.startsWith(`${dir}/`))) return true;
  return !!inputs.appearing && (!!change.created || !!change.deleted) && inputs.appearing.test(p);
}

/** Characters that make a line more than one plain command: operators, quoting, expansion, globbing, comments. */
const SHELL_SYNTAX = /[;&|<>$`\\(){}*?![\]'"#\n]|(^|\s)~/;

/** npm's lifecycle scripts run by an install: code of the repository's. */
const LIFECYCLE = [
  "preinstall",
  "install",
  "postinstall",
  "prepublish",
  "preprepare",
  "prepare",
  "postprepare",
  "dependencies",
];

/** The package managers' manifests, lockfiles and settings read from the package's folder or above it. */
const NODE_FILES = [
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "pnpm-workspace.yaml",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnpmfile.cjs",
  // Its presence alone makes npm run `node-gyp rebuild`, which compiles the repository's sources.
  "binding.gyp",
];

/**
 * Whether `spec` may run before the edit, and what it reads (see the module's note). Recognised: `npm install|i|ci`,
 * `yarn [install]`, `pnpm install|i` with options only (no package, no path) and a package.json with no install
 * lifecycle script, no workspaces and no local (`file:`, `link:`, path) dependency, and no `binding.gyp`;
 * `pip install` of requirement files (and plain package names) whose lines name no local path and no editable
 * install; `go mod download` without a `go.work` or a local `replace`; `cargo fetch`; `bundle install` with a Gemfile
 * that loads nothing of the repository's (no `gemspec`, `path:`, `require`, `eval_gemfile`…); and the implied tool
 * installs. Everything else, and any line with shell syntax, is `early: false` with the reason.
 */
export async function classifySetup(spec: SetupCommand, read: ReadFile): Promise<SetupVerdict> {
  if (spec.tool) return { early: true, inputs: none() };
  const line = spec.command.trim();
  if (!line || SHELL_SYNTAX.test(line)) return no("not one plain command");
  const words = line.split(/\s+/);
  const cwd = spec.cwd ? path.posix.normalize(spec.cwd).replace(/\/$/, "") : "";
  if (cwd.startsWith("..") || path.posix.isAbsolute(cwd)) return no("runs outside the checkout");
  const at = (name: string) => (cwd && cwd !== "." ? `${cwd}/${name}` : name);
  const [tool, ...args] = words as [string, ...string[]];
  switch (tool) {
    case "npm":
    case "yarn":
    case "pnpm":
      return nodeInstall(tool, args, at, read);
    case "pip":
    case "pip3":
      return pipInstall(args, at, read);
    case "python":
    case "python3":
      return args[0] === "-m" && (args[1] === "pip" || args[1] === "pip3")
        ? pipInstall(args.slice(2), at, read)
        : no("not a recognised install");
    case "go":
      return goDownload(args, cwd, at, read);
    case "cargo":
      return args[0] === "fetch" && args.slice(1).every(isFlag)
        ? {
            early: true,
            inputs: {
              ...none(),
              anywhere: ["Cargo.toml", "Cargo.lock", "rust-toolchain", "rust-toolchain.toml"],
              under: [".cargo"],
              // Cargo finds a package's targets by its files: a crate that gains or loses one reads differently.
              appearing: /(^|\/)(src\/(lib|main)\.rs|build\.rs)$/,
            },
          }
        : no("not a recognised install");
    case "bundle":
      return bundleInstall(args, at, read);
    default:
      return no("not a recognised install");
  }
}

async function nodeInstall(
  tool: "npm" | "yarn" | "pnpm",
  args: readonly string[],
  at: (name: string) => string,
  read: ReadFile,
): Promise<SetupVerdict> {
  const [verb, ...rest] = args;
  const installs =
    tool === "npm"
      ? verb === "install" || verb === "i" || verb === "ci" || verb === "clean-install"
      : tool === "yarn"
        ? verb === undefined || verb === "install" || isFlag(verb)
        : verb === "install" || verb === "i";
  if (!installs) return no("not a recognised install");
  const options = tool === "yarn" && verb !== undefined && isFlag(verb) ? args : rest;
  // A package name or a folder would change package.json, or read a folder of the repository's.
  if (!options.every(isFlag)) return no(`\`${tool}\` is given a package or a folder`);
  const manifest = await read(at("package.json"));
  if (manifest === null || manifest === false) return no("no readable package.json in its folder");
  let pkg: unknown;
  try {
    pkg = JSON.parse(manifest);
  } catch {
    return no("its package.json is not JSON");
  }
  if (!pkg || typeof pkg !== "object" || Array.isArray(pkg)) return no("its package.json is not an object");
  const json = pkg as Record<string, unknown>;
  const ignoresScripts = options.includes("--ignore-scripts");
  const scripts = json.scripts && typeof json.scripts === "object" ? (json.scripts as Record<string, unknown>) : {};
  const lifecycle = LIFECYCLE.filter((s) => s in scripts);
  if (lifecycle.length && !ignoresScripts)
    return no(`package.json runs the repository's code on install (${lifecycle.join(", ")})`);
  if (json.gypfile === true && !ignoresScripts) return no("package.json builds the repository's sources (gypfile)");
  // Workspaces link the repository's own folders and run their scripts.
  if ("workspaces" in json) return no("package.json has workspaces");
  if ((await read(at("pnpm-workspace.yaml"))) !== null) return no("pnpm-workspace.yaml makes it a workspace");
  if (!ignoresScripts && (await read(at("binding.gyp"))) !== null)
    return no("binding.gyp makes the install compile the repository's sources");
  const local = localDependency(json);
  if (local) return no(`the dependency \`${local}\` is a folder of the repository's`);
  return { early: true, inputs: { ...none(), near: NODE_FILES, under: [at(".yarn"), at("node_modules")] } };
}

/** The first dependency given as a local folder or file (`file:`, `link:`, `portal:`, `workspace:`, a path), if any. */
function localDependency(json: Record<string, unknown>): string | null {
  const fields = [
    "dependencies",
    "devDependencies",
    "optionalDependencies",
    "peerDependencies",
    "overrides",
    "resolutions",
    "pnpm",
  ];
  const walk = (value: unknown, name: string, depth: number): string | null => {
    if (typeof value === "string") return /^(file:|link:|portal:|workspace:|\.|\/|~)/.test(value.trim()) ? name : null;
    if (!value || typeof value !== "object" || depth > 6) return null;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const hit = walk(v, k, depth + 1);
      if (hit) return hit;
    }
    return null;
  };
  for (const field of fields) {
    const hit = walk(json[field], field, 0);
    if (hit) return hit;
  }
  return null;
}

/** pip's options that take a value; `-r`/`-c` name files (inputs), the others say nothing about the checkout. */
const PIP_VALUED = new Set(["-i", "--index-url", "--extra-index-url", "--trusted-host", "--timeout", "--retries"]);
/** pip's options that would read or write a folder of the checkout's, or install the project itself. */
const PIP_REFUSED =
  /^(-e|--editable|-f|--find-links|-t|--target|--prefix|--root|--src|--no-index|--config-settings|-C)(=|$)/;
/** A plain requirement: a name, extras and a version, never a path or an archive. */
const REQUIREMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]*\])?((==|~=|!=|>=|<=|===)[A-Za-z0-9.*+!_-]+)?$/;
const ARCHIVE = /\.(whl|zip|tar|gz|tgz|bz2|xz)$/i;

async function pipInstall(
  args: readonly string[],
  at: (name: string) => string,
  read: ReadFile,
): Promise<SetupVerdict> {
  if (args[0] !== "install") return no("not a recognised install");
  const files: { path: string; constraint: boolean }[] = [];
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    if (PIP_REFUSED.test(a)) return no(`\`pip install ${a}\` reads or writes the checkout`);
    const file = /^(-r|--requirement|-c|--constraint)(?:=(.+))?$/.exec(a);
    if (file) {
      const value = file[2] ?? args[++i];
      if (!value) return no("a requirement option without its file");
      files.push({ path: value, constraint: file[1] === "-c" || file[1] === "--constraint" });
      continue;
    }
    if (/^-r./.test(a)) {
      files.push({ path: a.slice(2), constraint: false });
      continue;
    }
    if (PIP_VALUED.has(a)) {
      i++;
      continue;
    }
    if (isFlag(a)) continue;
    // A bare name is a requirement to pip, never a folder (pip reads a path only with a separator or a dot).
    if (!REQUIREMENT.test(a) || ARCHIVE.test(a)) return no(`\`${a}\` may be a path`);
  }
  const inputs: string[] = [];
  const queue = files.map((f) => path.posix.normalize(at(f.path)));
  while (queue.length) {
    const file = queue.shift()!;
    if (file.startsWith("..") || path.posix.isAbsolute(file)) return no(`\`${file}\` is outside the checkout`);
    if (inputs.includes(file)) continue;
    if (inputs.length >= 20) return no("too many requirement files");
    inputs.push(file);
    const text = await read(file);
    if (text === null || text === false) return no(`the requirement file \`${file}\` cannot be read`);
    const included = requirementLines(text, file);
    if (typeof included === "string") return no(included);
    queue.push(...included);
  }
  return { early: true, inputs: { ...none(), exact: inputs } };
}

/**
 * A requirement file's lines: the files it includes (`-r`, `-c`, relative to its own folder), or why it is not
 * early (an editable install, a local path, a find-links folder, an environment variable).
 */
function requirementLines(text: string, file: string): string[] | string {
  const dir = path.posix.dirname(file) === "." ? "" : path.posix.dirname(file);
  const included: string[] = [];
  for (const raw of text.replace(/\\\r?\n/g, " ").split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, "").trim();
    if (!line) continue;
    if (/\$\{?\w/.test(line)) return `\`${file}\` uses an environment variable`;
    const nested = /^(-r|--requirement|-c|--constraint)(?:\s+|=)(\S+)$/.exec(line);
    if (nested) {
      included.push(path.posix.normalize(dir ? `${dir}/${nested[2]!}` : nested[2]!));
      continue;
    }
    if (/^(-e|--editable|-f|--find-links)\b/.test(line)) return `\`${file}\` has \`${line}\``;
    if (line.startsWith("-")) continue;
    const target = line.split(";")[0]!.trim();
    // A path (`.`, `./libs/x`, `lib/pkg`), a file: URL or an archive: something of the repository's.
    if (/^(\.|\/|~)|file:/.test(target) || (/\//.test(target) && !/:\/\//.test(target)) || ARCHIVE.test(target))
      return `\`${file}\` installs a local path (\`${target}\`)`;
  }
  return included;
}

async function goDownload(
  args: readonly string[],
  cwd: string,
  at: (name: string) => string,
  read: ReadFile,
): Promise<SetupVerdict> {
  if (args[0] !== "mod" || args[1] !== "download" || !args.slice(2).every(isFlag))
    return no("not a recognised install");
  // A workspace's `use` lines read its modules' folders; go looks for go.work upwards.
  for (const dir of ancestors(cwd))
    if ((await read(dir ? `${dir}/go.work` : "go.work")) !== null) return no("a go.work makes it a workspace");
  const mod = await read(at("go.mod"));
  if (mod === null || mod === false) return no("no readable go.mod in its folder");
  if (/=>\s*(\.|\/)/.test(mod)) return no("go.mod replaces a module with a folder of the repository's");
  return {
    early: true,
    inputs: { ...none(), near: ["go.mod", "go.sum", "go.work", "go.work.sum"], under: [at("vendor")] },
  };
}

/** Words of a Gemfile that load, evaluate or read something of the repository's. */
const GEMFILE_READS =
  /\b(gemspec|path|require|require_relative|eval_gemfile|load|instance_eval|eval|File|Dir|IO|system|exec|file)\b|`|%x/;

async function bundleInstall(
  args: readonly string[],
  at: (name: string) => string,
  read: ReadFile,
): Promise<SetupVerdict> {
  if (args[0] !== "install" || !args.slice(1).every((a) => isFlag(a) || /^\d+$/.test(a)))
    return no("not a recognised install");
  const gemfile = (await read(at("Gemfile"))) ?? (await read(at("gems.rb")));
  if (gemfile === null || gemfile === false) return no("no readable Gemfile in its folder");
  const hit = GEMFILE_READS.exec(gemfile);
  if (hit) return no(`the Gemfile reads the repository's files (\`${hit[0]}\`)`);
  return {
    early: true,
    inputs: {
      ...none(),
      near: ["Gemfile", "Gemfile.lock", "gems.rb", "gems.locked", ".ruby-version"],
      under: [at(".bundle")],
    },
  };
}

/** The folder and every folder above it, up to the checkout's root (""). */
function ancestors(cwd: string): string[] {
  const out: string[] = [];
  let dir = cwd === "." ? "" : cwd;
  for (;;) {
    out.push(dir);
    if (!dir) return out;
    dir = path.posix.dirname(dir) === "." ? "" : path.posix.dirname(dir);
  }
}

const isFlag = (word: string): boolean => /^-{1,2}[A-Za-z]/.test(word);
const none = (): SetupInputs => ({ near: [], anywhere: [], exact: [], under: [] });
const no = (why: string): SetupVerdict => ({ early: false, why });

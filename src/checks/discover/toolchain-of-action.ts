import { resolveVersion } from "./resolve-version.js";
import type { RepoReader } from "./types.js";

/** Actions the bot skips without a word: they only prepare the runner (the checkout, caches). */
const SILENT =
  /^actions\/(?:checkout|cache|cache\/restore|cache\/save|download-artifact)$|^(?:Swatinem\/rust-cache|actions\/setup-node-cache)$/i;

const NAMED: Record<string, { tool: string; inputs: string[]; file?: string }> = {
  "actions/setup-node": { tool: "node", inputs: ["node-version"], file: "node-version-file" },
  "actions/setup-python": { tool: "python", inputs: ["python-version"], file: "python-version-file" },
  "actions/setup-go": { tool: "go", inputs: ["go-version"], file: "go-version-file" },
  "actions/setup-java": { tool: "java", inputs: ["java-version"], file: "java-version-file" },
  "actions/setup-dotnet": { tool: "dotnet", inputs: ["dotnet-version"] },
  "ruby/setup-ruby": { tool: "ruby", inputs: ["ruby-version"] },
  "shivammathur/setup-php": { tool: "php", inputs: ["php-version"] },
  "pnpm/action-setup": { tool: "pnpm", inputs: ["version"] },
  "astral-sh/setup-uv": { tool: "uv", inputs: ["version"] },
  "hynek/setup-cached-uv": { tool: "uv", inputs: [] },
  "snok/install-poetry": { tool: "poetry", inputs: ["version"] },
  "abatilo/actions-poetry": { tool: "poetry", inputs: ["poetry-version"] },
  "pdm-project/setup-pdm": { tool: "pdm", inputs: ["version"] },
  "pypa/hatch": { tool: "hatch", inputs: ["version"] },
  "oven-sh/setup-bun": { tool: "bun", inputs: ["bun-version"] },
  "denoland/setup-deno": { tool: "deno", inputs: ["deno-version"] },
  "erlef/setup-beam": { tool: "elixir", inputs: ["elixir-version"] },
  "actions-rs/toolchain": { tool: "rust", inputs: ["toolchain"] },
  "dtolnay/rust-toolchain": { tool: "rust", inputs: ["toolchain"] },
  "conda-incubator/setup-miniconda": { tool: "python", inputs: ["python-version"] },
};

export type ActionMeaning =
  { kind: "silent" } | { kind: "toolchain"; tool: string; version: string | null } | { kind: "other" };

/**
 * What a `uses:` step means to the bot: a tool and its version (`actions/setup-python` with `python-version: "3.12"`,
 * `dtolnay/rust-toolchain@1.78`), a runner chore it skips silently, or another action it does not run. A version read
 * from a file (`python-version-file`, `go-version-file: go.mod`) is read from the repository.
 */
export async function actionMeaning(
  uses: string,
  withInputs: Record<string, string>,
  reader: RepoReader,
): Promise<ActionMeaning> {
  const [name = "", ref = ""] = uses.split("@");
  if (SILENT.test(name)) return { kind: "silent" };
  const known =
    NAMED[name.toLowerCase()] ?? Object.entries(NAMED).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  if (!known) {
    const generic = /^[\w.-]+\/setup-([a-z]+)$/i.exec(name);
    if (!generic) return { kind: "other" };
    const tool = generic[1]!.toLowerCase();
    const version = withInputs[`${tool}-version`] ?? withInputs.version;
    return { kind: "toolchain", tool, version: version ? resolveVersion(tool, version) : null };
  }
  let version = known.inputs.map((i) => withInputs[i]).find((v) => v !== undefined && v !== "") ?? null;
  // dtolnay/rust-toolchain names the toolchain by its ref: @stable, @nightly, @1.78.0.
  if (!version && name.toLowerCase() === "dtolnay/rust-toolchain" && ref && !/^(?:master|main|v\d+)$/.test(ref))
    version = ref;
  const versionFile = known.file ? withInputs[known.file] : undefined;
  if (!version && versionFile) version = await versionFromFile(versionFile, reader);
  // A list of versions (`python-version: |` with one a line) installs them all; the last is the default.
  if (version)
    version =
      version
        .split(/\r?\n/)
        .filter((l) => l.trim())
        .at(-1)
        ?.trim() ?? "";
  const minimum = !!versionFile && /(?:^|\/)go\.mod$/.test(versionFile);
  return {
    kind: "toolchain",
    tool: known.tool,
    version: version ? resolveVersion(known.tool, version, { minimum }) : null,
  };
}

/**
 * The version a `*-version-file` names, as written: `.nvmrc`, `.python-version`, `go.mod`'s `go` line, `package.json`
 * engines, `pyproject.toml`'s `requires-python`, `.tool-versions`.
 */
export async function versionFromFile(file: string, reader: RepoReader): Promise<string | null> {
  const text = await reader.read(file.replace(/^\.\//, ""));
  if (text === null) return null;
  if (/(?:^|\/)go\.mod$/.test(file)) return /^go\s+(\S+)/m.exec(text)?.[1] ?? null;
  if (/(?:^|\/)pyproject\.toml$/.test(file))
    return /^requires-python\s*=\s*["']([^"'\n]+)["']/m.exec(text)?.[1] ?? null;
  if (/(?:^|\/)package\.json$/.test(file)) {
    try {
      const engines = (JSON.parse(text) as { engines?: { node?: unknown } }).engines;
      return typeof engines?.node === "string" ? engines.node : null;
    } catch {
      return null;
    }
  }
  const first = text.split(/\r?\n/).find((l) => l.trim() && !l.trim().startsWith("#"));
  return first ? first.trim().replace(/^v(?=\d)/, "") : null;
}

/**
 * Which container image a repository's commands run in, first found wins: `sandbox.image` in
 * `.github/aider.yml` → `.devcontainer/devcontainer.json`'s `image` → the CI workflow job's `container:` → an image
 * for the discovered toolchain (the table below, which the operator may override) → the operator's default. Pure:
 * the caller reads the files and the environment.
 */

/**
 * Toolchain → image. A key is `tool` (any version: `{version}` in the image is replaced by the toolchain's version,
 * cut to `major[.minor]`) or `tool:version` (that version only, checked first). `AIDER_BOT_TOOLCHAIN_IMAGES` adds to
 * and overrides {@link DEFAULT_TOOLCHAIN_IMAGES}.
 */
export type ToolchainImageTable = Readonly<Record<string, string>>;

/** The official images for each toolchain; `tool:` keys hold the image used when no version is known. */
export const DEFAULT_TOOLCHAIN_IMAGES: ToolchainImageTable = {
  python: "docker.io/library/python:{version}",
  "python:": "docker.io/library/python:3",
  node: "docker.io/library/node:{version}",
  "node:": "docker.io/library/node:lts",
  go: "docker.io/library/golang:{version}",
  "go:": "docker.io/library/golang:1",
  rust: "docker.io/library/rust:{version}",
  "rust:": "docker.io/library/rust:1",
  "rust:stable": "docker.io/library/rust:1",
  ruby: "docker.io/library/ruby:{version}",
  "ruby:": "docker.io/library/ruby:3",
  java: "docker.io/library/eclipse-temurin:{version}",
  "java:": "docker.io/library/eclipse-temurin:21",
};

export interface ImageInputs {
  /** `sandbox.image` in `.github/aider.yml`. */
  configImage?: string;
  /** `image` of `.devcontainer/devcontainer.json` (see `readDevcontainerImage`). */
  devcontainerImage?: string;
  /** The `container:` (or `container.image`) of the CI workflow job the checks come from. */
  workflowImage?: string;
  /** Discovered toolchains and versions, in order of preference: `{ python: "3.12", node: "20" }`. */
  toolchain?: Readonly<Record<string, string>>;
  table?: ToolchainImageTable;
  /** The operator's default (`AIDER_BOT_DEFAULT_IMAGE`). */
  defaultImage: string;
}

export interface ImageChoice {
  image: string;
  /** Where it came from, for the status comment: "`sandbox.image` in .github/aider.yml". */
  source: string;
  /** Sources passed over, and why (a name that is not an image reference). */
  notes: string[];
}

/**
 * An image reference: `[registry/]name[:tag][@digest]`. Everything else is refused, in particular a leading `-`
 * (the engine would read it as an option) and whitespace.
 */
const IMAGE_REF =
  /^[a-z0-9][a-z0-9._-]*(?::[0-9]+)?(?:\/[a-z0-9][a-z0-9._-]*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** Whether `ref` is a well-formed image reference. `isImageReference("python:3.12") // true` */
export function isImageReference(ref: string): boolean {
  return ref.length <= 255 && IMAGE_REF.test(ref);
}

/** The image to use and where it came from. `chooseImage({ toolchain: { python: "3.12.1" }, defaultImage: "debian" })` → python:3.12 */
export function chooseImage(inputs: ImageInputs): ImageChoice {
  const notes: string[] = [];
  const candidates: [string | undefined, string][] = [
    [inputs.configImage, "`sandbox.image` in .github/aider.yml"],
    [inputs.devcontainerImage, "`image` in .devcontainer/devcontainer.json"],
    [inputs.workflowImage, "the CI workflow job's `container:`"],
  ];
  for (const [image, source] of candidates) {
    if (image === undefined || image.trim() === "") continue;
    const ref = image.trim();
    if (isImageReference(ref)) return { image: ref, source, notes };
    notes.push(`${source} is not an image reference (${JSON.stringify(ref.slice(0, 80))}); ignored`);
  }
  const table = { ...DEFAULT_TOOLCHAIN_IMAGES, ...inputs.table };
  for (const [tool, version] of Object.entries(inputs.toolchain ?? {})) {
    const image = toolchainImage(table, tool.toLowerCase(), version);
    if (image && isImageReference(image))
      return { image, source: `the repository's toolchain (${tool}${version ? ` ${version}` : ""})`, notes };
  }
  return { image: inputs.defaultImage, source: "the operator's default image (AIDER_BOT_DEFAULT_IMAGE)", notes };
}

/** The table's image for one toolchain: the exact `tool:version` key, else `tool` with the version filled in. */
function toolchainImage(table: ToolchainImageTable, tool: string, version: string): string | undefined {
  const wanted = version.trim();
  if (table[`${tool}:${wanted}`]) return table[`${tool}:${wanted}`];
  const short = /\d+(?:\.\d+)?/.exec(wanted)?.[0];
  if (short && table[`${tool}:${short}`]) return table[`${tool}:${short}`];
  const template = table[tool];
  if (template && short) return template.split("{version}").join(short);
  if (template && !template.includes("{version}")) return template;
  return table[`${tool}:`];
}

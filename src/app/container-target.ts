import type { AppEnv } from "../config/env.js";
import { chooseImage, type ImageChoice } from "../config/choose-image.js";
import { readDevcontainerImage } from "../config/read-devcontainer-image.js";
import type { ContainerTarget } from "../exec/types.js";
import type { RunRequest } from "../run/run-request.js";
import { createConfinedReader } from "../workspace/confined-reader.js";

/** What the check plan adds (the workflow job's `container:` and the discovered toolchain), when known. */
export interface PlanImageHints {
  workflowImage?: string;
  toolchain?: Readonly<Record<string, string>>;
}

/**
 * The container a run's commands use: the image chosen from the repo config, the devcontainer, the check plan's
 * hints and the operator's settings (see `chooseImage`), and a cache volume per repository — a fork's pull request
 * gets its own, so its scripts cannot plant packages that the repository's own runs later install.
 *
 * The devcontainer is read (through the confined reader) only from a checkout of the default branch (an issue's
 * run): like `.github/aider.yml`, what decides how commands run never comes from a pull request's head.
 */
export function containerTargetFor(
  req: Pick<RunRequest, "owner" | "repo" | "target" | "settings">,
  checkout: string,
  env: Pick<AppEnv, "defaultImage" | "toolchainImages">,
  hints: PlanImageHints = {},
): ContainerTarget & { notes: string[] } {
  const notes: string[] = [];
  let devcontainerImage: string | undefined;
  if (req.target.kind === "issue") {
    const read = createConfinedReader(checkout, { maxBytes: 256_000 }).read(".devcontainer/devcontainer.json");
    if (read.ok) {
      const found = readDevcontainerImage(read.content.toString("utf8"));
      if (found.image) devcontainerImage = found.image;
      else if (found.note) notes.push(found.note);
    }
  }
  const choice: ImageChoice = chooseImage({
    ...(req.settings.sandboxImage ? { configImage: req.settings.sandboxImage } : {}),
    ...(devcontainerImage ? { devcontainerImage } : {}),
    ...(hints.workflowImage ? { workflowImage: hints.workflowImage } : {}),
    ...(hints.toolchain ? { toolchain: hints.toolchain } : {}),
    table: env.toolchainImages,
    defaultImage: env.defaultImage,
  });
  const fork = req.target.kind !== "issue" && req.target.isFork ? `#fork-pr-${req.target.number}` : "";
  return {
    image: choice.image,
    imageSource: choice.source,
    checkout,
    cacheKey: `${req.owner}/${req.repo}${fork}`,
    notes: [...notes, ...choice.notes],
  };
}

import type { AppEnv } from "../config/env.js";
import { chooseImage, type ImageChoice } from "../config/choose-image.js";
import { readDevcontainerImage } from "../config/read-devcontainer-image.js";
import type { ContainerTarget } from "../exec/types.js";
import type { GitHubClient } from "../github/github-client.js";
import { RepoGitHub } from "../github/repo-github.js";
import type { RunRequest } from "../run/run-request.js";
import { createConfinedReader } from "../workspace/confined-reader.js";
import { threadNumber } from "../run/run-target.js";

/** What the check plan adds (the workflow job's `container:` and the discovered toolchain), when known. */
export interface PlanImageHints {
  workflowImage?: string;
  toolchain?: Readonly<Record<string, string>>;
  /** A pull request's run: the default branch's `.devcontainer/devcontainer.json` (see `readDefaultBranchDevcontainer`). */
  devcontainerJson?: string;
}

const DEVCONTAINER = ".devcontainer/devcontainer.json";

/**
 * A pull request's run: the default branch's `.devcontainer/devcontainer.json` through the contents API, as the
 * workflows are read (the run's checkout is the pull request's head, which never decides how commands run). An
 * issue's run reads it from its checkout, which is the default branch. Absent (404) or unreadable: no devcontainer,
 * with a note saying why when the read failed.
 */
export async function readDefaultBranchDevcontainer(
  req: Pick<RunRequest, "owner" | "repo" | "target" | "defaultBranch">,
  api: GitHubClient,
): Promise<{ text?: string; note?: string }> {
  if (req.target.kind === "issue") return {};
  try {
    const github = RepoGitHub.create({ octokit: api, owner: req.owner, repo: req.repo });
    const text = await github.reader(req.defaultBranch).read(DEVCONTAINER);
    return text === null ? {} : { text };
  } catch (error) {
    return {
      note: `${DEVCONTAINER} of the default branch could not be read (${error instanceof Error ? error.message : String(error)}); its image was not used`,
    };
  }
}

/**
 * The container a run's commands use: the image chosen from the repo config, the devcontainer, the check plan's
 * hints and the operator's settings (see `chooseImage`), and a cache volume per repository — a fork's pull request
 * gets its own, so its scripts cannot plant packages that the repository's own runs later install.
 *
 * The devcontainer comes from the default branch: an issue's run reads it from its checkout (through the confined
 * reader), a pull request's run is given it (`hints.devcontainerJson`, read through the contents API): like
 * `.github/aider.yml`, what decides how commands run never comes from a pull request's head.
 */
export function containerTargetFor(
  req: Pick<RunRequest, "owner" | "repo" | "target" | "settings">,
  checkout: string,
  env: Pick<AppEnv, "defaultImage" | "toolchainImages">,
  hints: PlanImageHints = {},
): ContainerTarget & { notes: string[] } {
  const notes: string[] = [];
  let devcontainerImage: string | undefined;
  let json: string | undefined;
  if (req.target.kind === "issue") {
    const read = createConfinedReader(checkout, { maxBytes: 256_000 }).read(DEVCONTAINER);
    if (read.ok) json = read.content.toString("utf8");
  } else json = hints.devcontainerJson;
  if (json !== undefined) {
    const found = readDevcontainerImage(json);
    if (found.image) devcontainerImage = found.image;
    else if (found.note) notes.push(found.note);
  }
  const choice: ImageChoice = chooseImage({
    ...(req.settings.sandboxImage ? { configImage: req.settings.sandboxImage } : {}),
    ...(devcontainerImage ? { devcontainerImage } : {}),
    ...(hints.workflowImage ? { workflowImage: hints.workflowImage } : {}),
    ...(hints.toolchain ? { toolchain: hints.toolchain } : {}),
    table: env.toolchainImages,
    defaultImage: env.defaultImage,
  });
  const fork = req.target.kind !== "issue" && req.target.isFork ? `#fork-pr-${threadNumber(req.target)}` : "";
  return {
    image: choice.image,
    imageSource: choice.source,
    checkout,
    cacheKey: `${req.owner}/${req.repo}${fork}`,
    notes: [...notes, ...choice.notes],
  };
}

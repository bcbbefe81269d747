import type { ImageSet, IssueImage } from "../../coder/issue-images.js";
import type { RepoGitHub } from "../../github/repo-github.js";
import { modelAcceptsImages } from "../../llm/model-vision.js";
import { findImageLinks, judgeImageLink } from "../find-image-links.js";
import { inspectImage } from "../sniff-image.js";
import { downloadImage } from "./download-image.js";

/** What one run downloads at most. */
export const IMAGE_LIMITS = {
  maxImages: 6,
  /** Per image: reading stops past this. */
  maxBytes: 5 * 1024 * 1024,
  maxTotalBytes: 15 * 1024 * 1024,
  /** Width × height. */
  maxPixels: 40_000_000,
};

export interface CollectImagesArgs {
  /** The gateway of the issue's repository: its installation token reads the attachments. */
  github: Pick<RepoGitHub, "downloadAttachment">;
  /** The texts to look in (raw, before sanitising: it turns images into "[image]"), each with where it was. */
  texts: readonly { label: string; text: string }[];
  /** The GitHub web origin (https://github.com, a GitHub Enterprise host): attachments are read there only. */
  webOrigin: string;
  model: string;
  /** `vision` from `.github/aider.yml`: overrides the model table. */
  vision?: boolean;
  limits?: Partial<typeof IMAGE_LIMITS>;
  signal?: AbortSignal;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The images of an issue or pull request for the model: links found in the texts, only GitHub's own attachments
 * kept (any other address is never requested), downloaded with the installation's token within the caps, checked
 * by content (type and pixels), as `data:` URLs. Everything left out is a note. Nothing is downloaded for a model
 * that takes no images. Never throws.
 */
export async function collectImages(args: CollectImagesArgs): Promise<ImageSet> {
  const limits = { ...IMAGE_LIMITS, ...args.limits };
  const seen = new Set<string>();
  const links: { label: string; link: string }[] = [];
  for (const t of args.texts) {
    for (const link of findImageLinks(t.text)) {
      if (!seen.has(link)) links.push({ label: t.label, link });
      seen.add(link);
    }
  }
  const notes: string[] = [];
  const allowed: { label: string; url: URL; sendToken: boolean }[] = [];
  const foreign = new Map<string, number>();
  for (const l of links) {
    const v = judgeImageLink(l.link, args.webOrigin);
    if (v.ok) allowed.push({ label: l.label, url: v.url, sendToken: v.sendToken });
    else foreign.set(v.reason, (foreign.get(v.reason) ?? 0) + 1);
  }
  for (const [reason, n] of foreign)
    notes.push(
      `${plural(n, "image link")} not read: ${reason} (only images uploaded to GitHub are downloaded; other addresses are never requested).`,
    );
  if (allowed.length === 0) return { images: [], notes };
  if (!modelAcceptsImages(args.model, args.vision)) {
    const why =
      args.vision === false
        ? "`vision: false` in .github/aider.yml"
        : `the model \`${args.model}\` is not known to accept images (set \`vision: true\` in .github/aider.yml if it does)`;
    notes.push(`${plural(allowed.length, "image")} left out: ${why}.`);
    return { images: [], notes };
  }
  if (allowed.length > limits.maxImages)
    notes.push(
      `${plural(allowed.length - limits.maxImages, "image")} left out: at most ${limits.maxImages} images are sent.`,
    );
  const images: IssueImage[] = [];
  let total = 0;
  for (const a of allowed.slice(0, limits.maxImages)) {
    const room = Math.min(limits.maxBytes, limits.maxTotalBytes - total);
    if (room <= 0) {
      notes.push(
        `The image in ${a.label} was left out: the images together reached ${Math.round(limits.maxTotalBytes / 1_048_576)} MB.`,
      );
      continue;
    }
    const got = await downloadImage(args.github, a.url, {
      maxBytes: room,
      tokenOrigin: a.sendToken ? a.url.origin : null,
      ...(args.signal ? { signal: args.signal } : {}),
    });
    if (!got.ok) {
      notes.push(`The image in ${a.label} was left out: ${got.reason}.`);
      continue;
    }
    const seen = inspectImage(got.bytes, limits.maxPixels);
    if (!seen.ok) {
      notes.push(`The image in ${a.label} was left out: ${seen.reason}.`);
      continue;
    }
    total += got.bytes.length;
    images.push({
      label: a.label,
      type: seen.type,
      bytes: got.bytes.length,
      part: {
        dataUrl: `data:${seen.type};base64,${got.bytes.toString("base64")}`,
        width: seen.width,
        height: seen.height,
      },
    });
  }
  return { images, notes };
}

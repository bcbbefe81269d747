/**
 * The `image` of a `.devcontainer/devcontainer.json` (JSON with comments and trailing commas), from its contents.
 * Only a prebuilt image is used: a devcontainer that builds from a Dockerfile or a compose file is not built by the
 * bot (that would run the repository's Dockerfile on the app's host), and the note says so.
 */
export type DevcontainerImage = { image: string; note?: undefined } | { image?: undefined; note?: string };

export function readDevcontainerImage(contents: string): DevcontainerImage {
  let data: unknown;
  try {
    data = JSON.parse(stripJsonc(contents));
  } catch {
    return { note: ".devcontainer/devcontainer.json is not valid JSON (with comments); its image was not used" };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return { note: ".devcontainer/devcontainer.json is not an object; its image was not used" };
  const record = data as Record<string, unknown>;
  if (typeof record.image === "string" && record.image.trim()) return { image: record.image.trim() };
  if (record.build !== undefined || record.dockerFile !== undefined || record.dockerComposeFile !== undefined) {
    return {
      note: ".devcontainer/devcontainer.json builds its image (Dockerfile or compose), which the bot does not do; set `sandbox.image` in .github/aider.yml to a prebuilt image",
    };
  }
  return {};
}

/** JSONC → JSON: `//` and `/* *\/` comments outside strings removed, trailing commas before `}`/`]` dropped. */
export function stripJsonc(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// Every relative link of the README and docs/ leads somewhere: the file exists and, when the link names a heading
// (`#anchor`), the target has a heading with that GitHub anchor. Sections move between the README and docs/; a link
// left pointing at the old place fails here instead of on GitHub.
const DOCS = ["README.md", ...readdirSync("docs").map((f) => path.join("docs", f))].filter((f) => f.endsWith(".md"));

/** GitHub's heading anchor: lower case, punctuation dropped, spaces → hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The file's lines outside fenced code blocks (a fence closes on a line of the same character, at least as long). */
function prose(file: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    // A backtick fence's info string holds no backtick (CommonMark): "```` ```` ````" opens no block.
    const marker = /^\s*(`{3,}(?=[^`]*$)|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker) fence = marker;
    else if (fence !== undefined && marker?.startsWith(fence) && line.trim() === marker) fence = undefined;
    else if (fence === undefined) out.push(line);
  }
  return out;
}

function headings(file: string): Set<string> {
  return new Set(
    prose(file)
      .flatMap((line) => /^#{1,6} (.+)$/.exec(line)?.slice(1, 2) ?? [])
      .map(anchorOf),
  );
}

function links(file: string): string[] {
  const text = prose(file).join("\n");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "").filter((target) => !/^[a-z]+:/.test(target));
}

describe("links in the README and docs/", () => {
  it("computes GitHub's anchors", () => {
    expect(anchorOf("Scaling out")).toBe("scaling-out");
    expect(anchorOf("Configuration: `.github/aider.yml`")).toBe("configuration-githubaideryml");
    expect(anchorOf("Operating the App: spend limits, fallback")).toBe("operating-the-app-spend-limits-fallback");
  });

  it.each(DOCS)("%s: every relative link leads to a file and heading that exist", (file) => {
    const broken = links(file).filter((target) => {
      const [rel = "", anchor] = target.split("#");
      const dest = rel === "" ? file : path.normalize(path.join(path.dirname(file), rel));
      if (!existsSync(dest)) return true;
      return anchor !== undefined && dest.endsWith(".md") && !headings(dest).has(anchor);
    });
    expect(broken).toEqual([]);
  });
});

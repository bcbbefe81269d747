import { capMarkdown } from "../../src/github/cap-markdown.js";

const fenceCount = (s: string) => s.split("\n").filter((l) => /^```/.test(l)).length;

describe("capMarkdown", () => {
  it("leaves text under the limit alone", () => {
    expect(capMarkdown("short", 100)).toBe("short");
  });

  it("cuts long text, closing an open fence and open <details>", () => {
    const md = `intro\n\n<details><summary>Output</summary>\n\n\`\`\`\n${"line\n".repeat(5_000)}\`\`\`\n</details>\n\nafter`;
    const out = capMarkdown(md, 2_000);
    expect(out.length).toBeLessThanOrEqual(2_000);
    expect(fenceCount(out) % 2).toBe(0);
    expect(out).toMatch(/```\n<\/details>\n\n… \(cut to fit GitHub's comment size limit\)$/);
  });

  it("adds no closers when the cut falls outside blocks", () => {
    const out = capMarkdown(`${"word ".repeat(1_000)}`, 1_000);
    expect(out).not.toContain("```");
    expect(out).not.toContain("</details>");
    expect(out.endsWith("limit)")).toBe(true);
  });
});

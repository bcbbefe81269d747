import { renderRunInputs } from "../../src/context/render-run-inputs.js";

describe("renderRunInputs", () => {
  const set = {
    files: [
      { path: "AGENTS.md", kind: "agents" as const, text: "x" },
      { path: "docs/ref.md", kind: "read" as const, text: "y" },
    ],
    maxTokens: 4000,
    from: "the default branch (main)",
    notes: ["`read:` file gone.md was not found on the default branch (main)."],
  };
  it("lists the files shown (scope, shortened, left out), the images sent and every note", () => {
    const text = renderRunInputs(
      set,
      [
        { path: "AGENTS.md", kind: "agents", tokens: 120, mode: "full" },
        { path: "src/api/AGENTS.md", kind: "agents", tokens: 40, mode: "full", scope: "src/api/" },
        { path: "CLAUDE.md", kind: "claude", tokens: 0, mode: "left-out" },
      ],
      {
        images: [
          {
            label: "the issue's description",
            type: "image/png",
            bytes: 4096,
            part: { dataUrl: "", width: 800, height: 600 },
          },
        ],
        notes: ["The image in the comment by @bo was left out: it is over the limit of 5.0 MB."],
      },
    )!;
    expect(text).toContain("<details><summary>Repository instructions and images (");
    expect(text).toContain("| `AGENTS.md` | AGENTS.md | 120 |  |");
    expect(text).toContain("| `src/api/AGENTS.md` | AGENTS.md | 40 | for files under `src/api/` |");
    expect(text).toContain("| `CLAUDE.md` | CLAUDE.md | 0 | left out: over `context.instructions` (4,000 tokens) |");
    expect(text).toContain("| `docs/ref.md` | `read:` | 0 | not shown |");
    expect(text).toContain("| the issue's description | image | ~765 | PNG 800×600, 4 KB |");
    expect(text).toContain("- `read:` file gone.md was not found");
    expect(text).toContain("- The image in the comment by @bo was left out");
    expect(text).toContain("Instruction files are read from the default branch (main).");
  });
  it("is null when the run had no instruction files, images or notes", () => {
    expect(renderRunInputs(undefined, undefined, undefined)).toBeNull();
    expect(
      renderRunInputs({ files: [], maxTokens: 1, from: "x", notes: [] }, [], { images: [], notes: [] }),
    ).toBeNull();
  });
});

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// The project's docs and code explain the design on their own: none cites a document kept outside the repository
// (the research and design notes the first waves were written from). Names are assembled so this test cites none.
const OUTSIDE = ["AIDER", "DESIGN", "STACK"].map((n) => `${n}.md`);
const ROOTS = ["src", "test", "docs", "bench", "README.md"];

function files(p: string): string[] {
  if (statSync(p).isFile()) return [p];
  return readdirSync(p).flatMap((name) =>
    name === "fixtures" || name === "node_modules" ? [] : files(path.join(p, name)),
  );
}

describe("docs and code are self-contained", () => {
  it("cite no document outside the repository", () => {
    const citing = ROOTS.flatMap(files).filter((f) => {
      const text = readFileSync(f, "utf8");
      return OUTSIDE.some((name) => text.includes(name)) || text.includes(["..", "shared", ""].join("/"));
    });
    expect(citing).toEqual([]);
  });
});

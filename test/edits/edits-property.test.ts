import fc from "fast-check";
import path from "node:path";
import { applyAnswer, block } from "./apply-answer.js";

describe("edit engine properties", () => {
  it("a unique SEARCH changes exactly the intended region", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z][a-z =()]{0,11}$/), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        fc.nat(),
        fc.array(fc.stringMatching(/^[A-Z0-9 ]{0,10}$/), { maxLength: 5 }),
        (lines, a, b, replacement) => {
          // Unique lines make any contiguous region a unique SEARCH; uppercase replacement lines cannot collide.
          const start = a % lines.length;
          const end = start + 1 + (b % (lines.length - start));
          const text = (ls: string[]) => ls.map((l) => `${l}\n`).join("");
          const file = text(lines);
          const r = applyAnswer("diff", block("f.txt", text(lines.slice(start, end)), text(replacement)), { "f.txt": file });
          expect(r.failures).toEqual([]);
          expect(r.after["f.txt"]).toBe(text([...lines.slice(0, start), ...replacement, ...lines.slice(end)]));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("no generated path ever gets a change outside the root", () => {
    const segment = fc.constantFrom("..", ".", "a", "b", ".git", "", "~", "C:", "x.txt", ".github", "workflows");
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.boolean(), (parts, absolute) => {
        const p = (absolute ? "/" : "") + parts.join("/");
        const r = applyAnswer("diff", `${p}\n\`\`\`\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n\`\`\`\n`, { "a/x.txt": "a\n" });
        for (const changed of r.result.outcome.changes.keys()) {
          const resolved = path.posix.normalize(changed);
          expect(path.posix.isAbsolute(changed)).toBe(false);
          expect(resolved.startsWith("..")).toBe(false);
          expect(resolved.split("/")).not.toContain(".git");
          expect(resolved.startsWith(".github/workflows/")).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

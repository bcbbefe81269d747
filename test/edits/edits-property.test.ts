import fc from "fast-check";
import path from "node:path";
import { applyBlocks, block } from "./editblock/apply-block-answer.js";

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
          const r = applyBlocks(block("f.txt", text(lines.slice(start, end)), text(replacement)), { "f.txt": file });
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
        const r = applyBlocks(`${p}\n\`\`\`\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n\`\`\`\n`, {
          "a/x.txt": "a\n",
        });
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

  it("keeps each file's line endings and final-newline state, whatever the edit", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z][a-z ]{0,8}$/), { minLength: 2, maxLength: 20 }),
        fc.nat(),
        fc.boolean(),
        fc.boolean(),
        (lines, a, crlf, finalNewline) => {
          const eol = crlf ? "\r\n" : "\n";
          const file = lines.join(eol) + (finalNewline ? eol : "");
          const at = a % lines.length;
          const r = applyBlocks(block("f.txt", `${lines[at]}\n`, "NEW 1\nNEW 2\n"), { "f.txt": file });
          const expected = [...lines.slice(0, at), "NEW 1", "NEW 2", ...lines.slice(at + 1)];
          expect(r.after["f.txt"]).toBe(expected.join(eol) + (finalNewline ? eol : ""));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a SEARCH that stands in several places is never applied", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-c]{1,2}$/), { minLength: 1, maxLength: 30 }),
        fc.array(fc.stringMatching(/^[a-c]{1,2}$/), { minLength: 1, maxLength: 3 }),
        (lines, needle) => {
          const text = (ls: string[]) => ls.map((l) => `${l}\n`).join("");
          const file = text([...lines, ...needle, "-", ...needle]);
          const r = applyBlocks(block("f.txt", text(needle), "X\n"), { "f.txt": file });
          expect(r.reasons).toEqual(["ambiguous"]);
          expect(r.after["f.txt"]).toBe(file);
        },
      ),
      { numRuns: 300 },
    );
  });
});

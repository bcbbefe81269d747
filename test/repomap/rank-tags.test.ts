import { identMultiplier, rankTags } from "../../src/repomap/rank-tags.js";
import type { Tag } from "../../src/repomap/types.js";

const def = (relPath: string, name: string, line = 0): Tag => ({ relPath, name, kind: "def", line });
const ref = (relPath: string, name: string, line = 0): Tag => ({ relPath, name, kind: "ref", line });

// Two libraries used equally by one caller: nothing but the request can tell them apart.
const tags: Tag[] = [
  def("lib/alpha.ts", "alphaThing"),
  def("lib/beta.ts", "betaThing"),
  ref("main.ts", "alphaThing"),
  ref("main.ts", "betaThing"),
  def("main.ts", "main"),
];
const files = ["lib/alpha.ts", "lib/beta.ts", "main.ts", "README.md"];
const fileOrder = (entries: { relPath: string }[]) => [...new Set(entries.map((e) => e.relPath))];

describe("rankTags", () => {
  test("a mentioned identifier, a mentioned file or a chat file's references decide between equals", () => {
    const byIdent = fileOrder(rankTags({ tags, files, mentionedIdents: ["betaThing"] }));
    const byIdentAlpha = fileOrder(rankTags({ tags, files, mentionedIdents: ["alphaThing"] }));
    expect(byIdent.indexOf("lib/beta.ts")).toBeLessThan(byIdent.indexOf("lib/alpha.ts"));
    expect(byIdentAlpha.indexOf("lib/alpha.ts")).toBeLessThan(byIdentAlpha.indexOf("lib/beta.ts"));
    const byFile = fileOrder(rankTags({ tags, files, mentionedFiles: ["lib/beta.ts"] }));
    expect(byFile.indexOf("lib/beta.ts")).toBeLessThan(byFile.indexOf("lib/alpha.ts"));
  });

  test("references from chat files weigh 50× and chat files themselves are never listed", () => {
    const withChat: Tag[] = [...tags, ref("chat.ts", "betaThing")];
    const out = rankTags({ tags: withChat, files: [...files, "chat.ts"], chatFiles: ["chat.ts"] });
    expect(out.map((e) => e.relPath)).not.toContain("chat.ts");
    expect(out[0]).toMatchObject({ relPath: "lib/beta.ts", name: "betaThing", line: 0 });
  });

  test("definitions first, then graph files, then files without tags", () => {
    const out = rankTags({ tags, files });
    const firstNameOnly = out.findIndex((e) => e.name === undefined);
    expect(out.slice(0, firstNameOnly).every((e) => e.name !== undefined)).toBe(true);
    expect(out.slice(firstNameOnly).every((e) => e.name === undefined)).toBe(true);
    expect(out[out.length - 1]).toEqual({ relPath: "README.md" });
  });

  test("a name defined on several rows yields one entry per row", () => {
    const out = rankTags({
      tags: [def("a.py", "f", 1), def("a.py", "f", 9), ref("b.py", "f")],
      files: ["a.py", "b.py"],
    });
    expect(out.filter((e) => e.name === "f").map((e) => e.line)).toEqual([1, 9]);
  });

  test("definitions without any references anywhere still rank (treated as their own references)", () => {
    const out = rankTags({ tags: [def("a.go", "Alpha"), def("b.go", "Beta")], files: ["a.go", "b.go"] });
    expect(
      out
        .filter((e) => e.name)
        .map((e) => e.name)
        .sort(),
    ).toEqual(["Alpha", "Beta"]);
  });

  test("identifier weights follow Aider's rules", () => {
    const none = new Set<string>();
    expect(identMultiplier("run", none, 1)).toBe(1);
    expect(identMultiplier("run", new Set(["run"]), 1)).toBe(10);
    expect(identMultiplier("parseConfig", none, 1)).toBe(10);
    expect(identMultiplier("parse_config", none, 1)).toBe(10);
    expect(identMultiplier("parseCfg", none, 1)).toBe(10);
    expect(identMultiplier("parseCf", none, 1)).toBe(1);
    expect(identMultiplier("_private_thing", none, 1)).toBeCloseTo(1);
    expect(identMultiplier("_x", none, 1)).toBeCloseTo(0.1);
    expect(identMultiplier("init", none, 6)).toBeCloseTo(0.1);
  });
});

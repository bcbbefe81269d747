import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Fence } from "../../../src/edits/types.js";
import { applyBlocks } from "./apply-block-answer.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/edits/editblock/cases");

function readTree(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(out, readTree(full, base));
    else out[path.relative(base, full).split(path.sep).join("/")] = readFileSync(full, "utf8");
  }
  return out;
}

interface CaseMeta {
  format: "diff" | "diff-fenced";
  chatFiles: string[];
  fence?: [string, string];
}

/** Answers written the way real models write them, applied to before/, must give after/ exactly. */
describe.each(readdirSync(root))("answer fixture %s", (name) => {
  it("applies every block and gives exactly the expected files", () => {
    const dir = path.join(root, name);
    const meta = JSON.parse(readFileSync(path.join(dir, "case.json"), "utf8")) as CaseMeta;
    const answer = readFileSync(path.join(dir, "answer.md"), "utf8");
    const fence: Fence = meta.fence ?? ["```", "```"];
    const r = applyBlocks(answer, readTree(path.join(dir, "before")), {
      format: meta.format,
      chatFiles: meta.chatFiles,
      fence,
    });
    expect(r.failures).toEqual([]);
    expect(r.result.reflection).toBeNull();
    expect(r.after).toEqual(readTree(path.join(dir, "after")));
  });
});

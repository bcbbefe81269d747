import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { applyAnswer } from "./apply-answer.js";
import type { EditFormatName } from "../../src/edits/types.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/edits/cases");

function readTree(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(out, readTree(full, base));
    else out[path.relative(base, full).split(path.sep).join("/")] = readFileSync(full, "utf8");
  }
  return out;
}

/** Answers as real models write them, applied to a before/ tree, must give the after/ tree exactly. */
describe.each(readdirSync(root))("fixture case %s", (name) => {
  it("applies to exactly the expected files", () => {
    const dir = path.join(root, name);
    const meta = JSON.parse(readFileSync(path.join(dir, "case.json"), "utf8")) as {
      format: EditFormatName;
      chatFiles: string[];
    };
    const answer = readFileSync(path.join(dir, "answer.md"), "utf8");
    const r = applyAnswer(meta.format, answer, readTree(path.join(dir, "before")), {
      chatFiles: meta.chatFiles,
      fence: meta.format === "whole" ? ["````", "````"] : ["```", "```"],
    });
    expect(r.failures).toEqual([]);
    expect(r.after).toEqual(readTree(path.join(dir, "after")));
  });
});

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { EditFormatName, FailureReason, Fence } from "../../../src/edits/types.js";
import { applyAnswer } from "../apply-answer.js";

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/edits");

function readTree(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(out, readTree(full, base));
    else out[path.relative(base, full).split(path.sep).join("/")] = readFileSync(full, "utf8");
  }
  return out;
}

interface CaseMeta {
  /** What the case shows, and why Aider gets it wrong when it does. */
  about: string;
  chatFiles: string[];
  /** Expected failure reasons, in order (default: none). */
  reasons?: FailureReason[];
  fence?: [string, string];
}

/**
 * Run every case under `test/fixtures/edits/<format>/`: `answer.md` (a model's answer as real models write it)
 * applied to `before/` must leave exactly `after/` (missing `after/` = unchanged) and fail with `case.json`'s reasons.
 */
export function describeFixtureCases(format: EditFormatName): void {
  const root = path.join(fixtures, format);
  describe.each(readdirSync(root))(`${format} fixture %s`, (name) => {
    const dir = path.join(root, name);
    const meta = JSON.parse(readFileSync(path.join(dir, "case.json"), "utf8")) as CaseMeta;
    it(meta.about, () => {
      const before = readTree(path.join(dir, "before"));
      const expected = existsSync(path.join(dir, "after")) ? readTree(path.join(dir, "after")) : before;
      const fence: Fence = meta.fence ?? ["```", "```"];
      const r = applyAnswer(format, readFileSync(path.join(dir, "answer.md"), "utf8"), before, {
        chatFiles: meta.chatFiles,
        fence,
      });
      expect(r.failures.map((f) => [f.path, f.reason])).toEqual(
        (meta.reasons ?? []).map((reason) => [expect.any(String), reason]),
      );
      expect(r.after).toEqual(expected);
    });
  });
}

import { shellFenceTag } from "../editblock/markers.js";
import { normalizeEditPath } from "../path-policy.js";
import type { Edit, EditFailure, ParseContext, ParseResult } from "../types.js";
import { listingName, mentionedChatFile } from "./listing-name.js";
import { otherFormat } from "./other-format.js";
import { openingFence, readListing, type OpenFence } from "./read-listing.js";

/** How a listing's filename was found; earlier sources win when a file is listed twice (Aider's dedupe, docs/behaviour.md#whole-files). */
type Source = "block" | "saw" | "chat";
const PRIORITY: readonly Source[] = ["block", "saw", "chat"];

/** `python:src/a.py` or `src/a.py` as a fence's info string: some models name the file there. */
function infoName(open: OpenFence): string | null {
  if (open.kind !== "backticks") return null;
  const m = /^[\w+#.-]*:(\S+)$/.exec(open.info) ?? /^(\S*\/\S*)$/.exec(open.info);
  return m ? normalizeEditPath(m[1]!) : null;
}

/**
 * Parse whole-file listings (docs/behaviour.md#whole-files, with the fixes of docs/behaviour.md#whole-file-fixes): a fence opens a listing named by the line
 * before it; with no name there, the last backticked chat file mentioned since the previous listing names it, else
 * the only chat file. Inner fences are tracked so Markdown files are not cut short; an unterminated listing at the
 * end of the answer keeps what was read. A shell-tagged fence with no filename is a suggested command, never a
 * listing (otherwise `npm test` would overwrite the only chat file). When a file is listed twice the first listing
 * from the best source wins.
 * `parseWhole("a.txt\n```\nhi\n```\n", ctx).edits → [{ kind: "whole", path: "a.txt", content: "hi\n" }]`
 */
export function parseWhole(text: string, ctx: ParseContext): ParseResult {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const found: { path: string; content: string; source: Source }[] = [];
  const failures: EditFailure[] = [];
  const shell: string[] = [];
  let saw: string | null = null;
  const onlyChatFile = ctx.chatFiles.length === 1 ? ctx.chatFiles[0] : undefined;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!; // i < lines.length
    const open = openingFence(line, ctx.fence);
    if (!open) {
      saw = mentionedChatFile(line, ctx.chatFiles) ?? saw;
      i++;
      continue;
    }
    const listing = readListing(lines, i + 1, open);
    const above = lines[i - 1];
    const named = (above !== undefined ? listingName(above, ctx) : null) ?? infoName(open);
    if (!named && shellFenceTag(line) !== null) {
      shell.push(listing.body.join("\n"));
    } else {
      let path: string | null = named;
      let source: Source = "block";
      if (!path && saw) [path, source] = [saw, "saw"];
      else if (!path && onlyChatFile !== undefined) [path, source] = [onlyChatFile, "chat"];
      const wrongFormat = path ? otherFormat(path, listing.body) : null;
      if (path && wrongFormat) {
        failures.push({
          path,
          reason: "malformed",
          message: `The listing for \`${path}\` holds ${wrongFormat}, not the file's content, so it was not written. In this format, send the complete new content of the file.`,
        });
      } else if (path) found.push({ path, content: listing.body.length ? `${listing.body.join("\n")}\n` : "", source });
      else {
        failures.push({
          path: "",
          reason: "missing-filename",
          message: `The file listing that starts at line ${i + 1} of your answer does not say which file it is. Put the file's path, alone, on the line right before the opening fence.`,
        });
      }
    }
    saw = null;
    i = listing.next;
  }
  const edits: Edit[] = [];
  const taken = new Set<string>();
  for (const f of found) {
    if (taken.has(f.path)) continue;
    // The listing of this path from the best source (f itself when no other outranks it).
    const best =
      PRIORITY.map((s) => found.find((g) => g.path === f.path && g.source === s)).find((g) => g !== undefined) ?? f;
    taken.add(f.path);
    edits.push({ kind: "whole", path: best.path, content: best.content });
  }
  return { edits, shell, failures };
}

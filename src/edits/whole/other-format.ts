/**
 * The edit format a listing's body is really written in, when the model answered in another format than `whole`
 * (a unified diff, SEARCH/REPLACE blocks, a V4A patch), or null. Written as a listing, such a body would replace
 * the whole file with the diff text (Aider #5486 shows models mixing formats). Files that are themselves diffs
 * (`.diff`, `.patch`) are exempt.
 */
export function otherFormat(path: string, body: readonly string[]): string | null {
  if (/\.(diff|patch)$/i.test(path)) return null;
  const first = body.findIndex((l) => l.trim() !== "");
  const line = body[first];
  if (line === undefined) return null;
  if (line.startsWith("--- ") && (body[first + 1] ?? "").startsWith("+++ ")) return "a unified diff";
  if (line.trim() === "*** Begin Patch") return "a V4A patch";
  if (body.some((l) => /^<{5,9} SEARCH\s*$/.test(l.trim())) && body.some((l) => /^>{5,9} REPLACE\s*$/.test(l.trim())))
    return "SEARCH/REPLACE blocks";
  return null;
}

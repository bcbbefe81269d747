/** GitHub refuses issue comments over 65,536 characters; stay clear of it so the marker and notes always fit. */
export const COMMENT_LIMIT = 65_536;

const NOTE = "\n\n… (cut to fit GitHub's comment size limit)";

/**
 * `markdown` cut to at most `limit` characters (pure), still well-formed: an open code fence is closed and open
 * `<details>` blocks are closed, so a cut never swallows the rest of the page into a code block.
 */
export function capMarkdown(markdown: string, limit = COMMENT_LIMIT - 1_000): string {
  if (markdown.length <= limit) return markdown;
  // Room for the closers we may add: a fence and a few </details>.
  let body = markdown.slice(0, Math.max(0, limit - NOTE.length - 200));
  const lastNewline = body.lastIndexOf("\n");
  if (lastNewline > body.length - 500) body = body.slice(0, lastNewline);
  const closers: string[] = [];
  const fence = openFence(body);
  if (fence) closers.push(fence);
  const open = (body.match(/<details>/g) ?? []).length - (body.match(/<\/details>/g) ?? []).length;
  for (let i = 0; i < Math.min(open, 10); i++) closers.push("</details>");
  return `${body}${closers.length ? `\n${closers.join("\n")}` : ""}${NOTE}`;
}

/** The fence string that would close the code block open at the end of `text`, or null. */
function openFence(text: string): string | null {
  let open: string | null = null;
  for (const line of text.split("\n")) {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (!m) continue;
    if (open === null) open = m[1]!;
    else if (m[1]!.startsWith(open) && line.trim() === m[1]) open = null;
  }
  return open;
}

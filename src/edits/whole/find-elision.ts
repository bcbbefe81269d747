/** A line of a listing that stands for code the model left out. */
export interface Elision {
  /** 1-based line number in the listing. */
  line: number;
  text: string;
}

// Comment openers and closers of the languages models write listings in.
const COMMENT_OPEN = /^(\/\/+|#+|--|;+|\/\*+|\*|<!--|\{\/\*|%|'|rem\b|"""|''')\s*/i;
const COMMENT_CLOSE = /\s*(\*\/\}?|-->|"""|''')$/;

// "... rest of the file unchanged ...", "... existing code ...", "… other methods …": dots plus an elision word.
const DOTTED_WORDS =
  /\b(rest|existing|unchanged|remain(s|ing)?|same|previous(ly)?|omitted|original|keep(ing)?|as before|(other|more) (code|methods|functions|fields|routes|imports|tests|cases|properties|components|lines|stuff))\b/i;
// Without dots only unmistakable phrases count, so ordinary comments ("# other imports") are left alone.
const PHRASES = [
  /\brest of (the )?[\w ]{0,30}\b(unchanged|the same|as (is|before)|omitted|remains?|stays?|goes here)\b/i,
  /^(the )?(existing|unchanged|previous|original|remaining) (code|implementation|content|methods|functions|logic|imports|tests|styles)( (here|unchanged|remains?( the same| unchanged)?|as before|omitted|goes here|stays the same))?\.?$/i,
  /^(keep|keeping) (the )?(existing|rest|remaining|original)\b/i,
  /^(code|content|implementation) (unchanged|omitted|elided)\b/i,
];

/**
 * The first line of a whole-file listing that elides code ("// ... rest of file unchanged ...",
 * "# ... existing code ...", `<!-- ... rest of the page ... -->`), or null. Writing such a listing would delete the
 * code it stands for (Aider #1915, #1832, #4325; docs/behaviour.md#whole-file-fixes). Only comment lines count, so Python's bare
 * `...` and JavaScript spreads are code. Lines in `keep` (the file's current lines, trimmed) are never elisions:
 * the model faithfully copied a comment that really is in the file.
 */
export function findElision(content: string, keep: ReadonlySet<string> = new Set()): Elision | null {
  const lines = content.split("\n");
  for (const [i, line] of lines.entries()) {
    const t = line.trim();
    if (!COMMENT_OPEN.test(t) || keep.has(t)) continue;
    const body = t.replace(COMMENT_OPEN, "").replace(COMMENT_CLOSE, "").trim();
    const dotted = /\.\.\.|…/.test(body) && DOTTED_WORDS.test(body);
    const stripped = body.replace(/^(\.\.\.|…)\s*|\s*(\.\.\.|…)$/g, "");
    if (dotted || PHRASES.some((re) => re.test(stripped))) return { line: i + 1, text: t };
  }
  return null;
}

/**
 * A line that stands for omitted code ("// ... rest of file unchanged ...", "# ... existing code ...",
 * "<!-- ... -->"): writing such a listing verbatim would destroy the file (Aider #1915, #1832, AIDER.md A.12).
 * Returns the 1-based line number of the first such line, or null.
 */
export function findElision(content: string): number | null {
  const lines = content.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    const comment = /^(\/\/|#|--|;|\/\*|\*|<!--|\{\/\*|%|')/.test(t);
    const dots = /\.\.\.|…/.test(t);
    const words = /\b(rest|existing|unchanged|remain(s|ing)?|same( as)?|previous|other (code|methods|functions)|omitted|keep)\b/i.test(t);
    if ((comment || t.startsWith("...")) && dots && words) return i + 1;
  }
  return null;
}

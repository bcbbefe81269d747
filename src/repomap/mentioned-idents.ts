/** What a request text points at: repo files it names and identifiers it uses. */
export interface Mentions {
  mentionedFiles: string[];
  mentionedIdents: string[];
}

/** Shorter words ("the", "fix", "add") are too common to tell us anything about the code. */
const MIN_IDENT = 4;
/** Aider's stem rule: a file whose name without extension is a mentioned word, for words of 5+ letters. */
const MIN_STEM = 5;

/**
 * Find the files and identifiers a request mentions (docs/behaviour.md#file-mentions). A file is mentioned by its repo path, or by its
 * basename when that looks like a file name (has `.`, `_`, `-`) and names exactly one file (and no chat file), or
 * when its stem equals a whole word of five or more letters in the text (case-insensitive). Chat files are not reported.
 * Example: `findMentions("fix parseConfig in config.ts", ["src/config.ts"])` →
 * `{ mentionedFiles: ["src/config.ts"], mentionedIdents: ["parseConfig", "config"] }`.
 */
export function findMentions(text: string, files: readonly string[], chatFiles: readonly string[] = []): Mentions {
  const chat = new Set(chatFiles);
  const words = new Set(
    text
      .split(/\s+/)
      .map((w) =>
        w
          .replace(/[,.!;:?]+$/, "")
          .replace(/^["'`*_]+|["'`*_]+$/g, "")
          .replace(/\\/g, "/"),
      )
      .filter((w) => w.length > 0),
  );
  const idents = [...new Set(text.split(/\W+/).filter((w) => w.length >= MIN_IDENT))];
  // Stems are compared with whole words only: "index" inside "src/parser/index.ts" must not mention every index file.
  const lowerWords = new Set(
    [...words].filter((w) => /^\w+$/.test(w) && w.length >= MIN_STEM).map((w) => w.toLowerCase()),
  );

  const byBase = new Map<string, string[]>();
  for (const f of [...files, ...chat]) {
    const base = basename(f);
    byBase.set(base, [...(byBase.get(base) ?? []), f]);
  }
  const found = new Set<string>();
  for (const f of files) {
    if (chat.has(f)) continue;
    const base = basename(f);
    if (words.has(f)) found.add(f);
    else if (words.has(base) && /[/\\._-]/.test(base) && byBase.get(base)?.length === 1) found.add(f);
    const stem = base.replace(/\.[^.]*$/, "").toLowerCase();
    if (stem.length >= MIN_STEM && lowerWords.has(stem)) found.add(f);
  }
  return { mentionedFiles: [...found].sort(), mentionedIdents: idents };
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

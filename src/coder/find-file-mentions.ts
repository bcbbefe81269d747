export interface FileMentionContext {
  /** All files of the repository, repo-relative with forward slashes. */
  repoFiles: readonly string[];
  /** Files already in the chat (editable). */
  chatFiles: readonly string[];
  readFiles: readonly string[];
  /** Files already declined or dropped (e.g. over the cap): never proposed again (docs/behaviour.md#file-mentions). */
  ignored?: ReadonlySet<string>;
}

const TRAILING_PUNCTUATION = /[,.!;:?]+$/;
const QUOTES = /^["'`*_]+|["'`*_]+$/g;

const PATH_LIKE = /[/\\._-]/;

/**
 * Words of a text as docs/behaviour.md#file-mentions splits them: trailing punctuation, then quotes and emphasis stripped.
 * `marked` holds the words written in backticks or alone on their line: only those can name a file whose path is a
 * plain word (`run`, `Makefile`), so prose like "we run the tests" does not pull in a root file called `run`.
 */
function mentionWords(text: string): { words: Set<string>; marked: Set<string> } {
  const words = new Set<string>();
  const marked = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const raws = line.split(/\s+/).filter(Boolean);
    for (const raw of raws) {
      const word = raw.replace(TRAILING_PUNCTUATION, "").replace(QUOTES, "").replace(/\\/g, "/").replace(/^\.\//, "");
      if (!word) continue;
      words.add(word);
      if (raws.length === 1 || /^`.*`[,.!;:?]*$/.test(raw)) marked.add(word);
    }
  }
  return { words, marked };
}

function basename(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? path : path.slice(i + 1);
}

/**
 * Repo files a text names that are not in the chat: by full relative path, or by a basename that is path-like
 * (contains `/ \ . _ -`), unique among addable files, and not the basename of an in-chat or read-only file (docs/behaviour.md#file-mentions).
 * Returned in repository order.
 * @example findFileMentions("see src/util.ts", { repoFiles: ["src/util.ts"], chatFiles: [], readFiles: [] }) // ["src/util.ts"]
 */
export function findFileMentions(text: string, ctx: FileMentionContext): string[] {
  const { words, marked } = mentionWords(text);
  const taken = new Set([...ctx.chatFiles, ...ctx.readFiles]);
  const addable = ctx.repoFiles.filter((f) => !taken.has(f) && !ctx.ignored?.has(f));
  const takenBasenames = new Set([...taken].map(basename));
  const basenameCount = new Map<string, number>();
  for (const file of addable) basenameCount.set(basename(file), (basenameCount.get(basename(file)) ?? 0) + 1);

  return addable.filter((file) => {
    if (PATH_LIKE.test(file) ? words.has(file) : marked.has(file)) return true;
    const base = basename(file);
    return PATH_LIKE.test(base) && words.has(base) && basenameCount.get(base) === 1 && !takenBasenames.has(base);
  });
}

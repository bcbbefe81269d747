/**
 * Quote one word for a POSIX shell: left bare when it only has safe characters, else single-quoted (a `'` inside
 * becomes `'\''`). File names come from the model's edits, so they must never be able to inject shell syntax.
 *
 * @example shellQuote("my file.ts") // "'my file.ts'"
 */
export function shellQuote(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_./=:@%+,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

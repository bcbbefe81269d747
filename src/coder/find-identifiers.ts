/**
 * Identifier-like words of a request (camelCase, snake_case, dotted names split), for personalising the repo map.
 * Plain lowercase words are kept only when they carry a `_` or digit, so ordinary English ("the", "add") is skipped.
 * @example findIdentifiers("make fetchUser retry") // ["fetchUser"]
 */
export function findIdentifiers(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/[A-Za-z_$][A-Za-z0-9_$]*/g)) {
    const word = match[0];
    if (word.length < 3) continue;
    const looksLikeCode = /[a-z][A-Z]|^[A-Z][a-z]+[A-Z]|_|\d/.test(word);
    if (looksLikeCode) found.add(word);
  }
  return [...found];
}

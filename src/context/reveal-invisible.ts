/**
 * Invisible and direction-changing Unicode characters (pure). A maintainer reading a comment or a diff on GitHub does
 * not see them, but a model reads them: zero-width characters split or hide words, Unicode "tag" characters
 * (U+E0000–U+E007F) and variation selectors can spell out a whole hidden instruction, and bidi controls (RLO/LRO/…)
 * make text display in another order than it is stored ("Trojan Source", CVE-2021-42574).
 */

// Zero-width and format characters: ZWSP, ZWNJ, ZWJ, word joiner, invisible operators, BOM, soft hyphen, Mongolian
// vowel separator, combining grapheme joiner, Hangul fillers, and the interlinear annotation controls.
// eslint-disable-next-line no-misleading-character-class -- these joiners are matched alone, on purpose
const ZERO_WIDTH = /[\u00AD\u034F\u115F\u1160\u180E\u200B-\u200D\u2060-\u2064\u3164\uFEFF\uFFA0\uFFF9-\uFFFB]/gu;
// Unicode tag characters encode ASCII invisibly ("ASCII smuggling"); variation selectors VS1–VS14 and VS17–VS256
// carry bytes the same way. VS15/VS16 (U+FE0E/U+FE0F) stay: they choose text or emoji style of a visible emoji.
// eslint-disable-next-line no-misleading-character-class -- selectors are matched alone, on purpose
const SMUGGLING = /[\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}\uFE00-\uFE0D]/gu;
// Bidi embedding/override/isolate controls and the directional marks.
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

export interface InvisibleCounts {
  zeroWidth: number;
  smuggled: number;
  bidi: number;
}

/**
 * Drop zero-width and smuggling characters and replace each bidi control by a visible `[U+202E]`, so the text reads
 * in the order it is stored. Returns the counts so the caller can say what was removed.
 * @example revealInvisible("a\u200Bb\u202Ec").text === "ab[U+202E]c"
 */
export function revealInvisible(text: string): { text: string; counts: InvisibleCounts } {
  const counts: InvisibleCounts = { zeroWidth: 0, smuggled: 0, bidi: 0 };
  const out = text
    .replace(SMUGGLING, () => {
      counts.smuggled++;
      return "";
    })
    .replace(ZERO_WIDTH, () => {
      counts.zeroWidth++;
      return "";
    })
    .replace(BIDI, (c) => {
      counts.bidi++;
      return `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]`;
    });
  return { text: out, counts };
}

/** The hidden ASCII text that tag characters spell (for logs and tests: what the trick tried to say). */
export function decodeTagCharacters(text: string): string {
  return [...text]
    .map((c) => c.codePointAt(0)!)
    .filter((cp) => cp >= 0xe0020 && cp <= 0xe007e)
    .map((cp) => String.fromCodePoint(cp - 0xe0000))
    .join("");
}

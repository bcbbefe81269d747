const strictUtf8KeepingBom = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decode a file's bytes as strict UTF-8 (throws on invalid bytes) and keep a leading byte-order mark as U+FEFF.
 * A default `TextDecoder` drops the BOM, so an edited file was written back without it; the edit
 * engine takes it off before matching and puts it back (`src/edits/line-endings.ts`), and writing the string as
 * UTF-8 writes the BOM's bytes again. `decodeUtf8KeepingBom(Uint8Array.of(0xef, 0xbb, 0xbf, 0x61)) === "\uFEFFa"`
 */
export function decodeUtf8KeepingBom(bytes: Uint8Array): string {
  return strictUtf8KeepingBom.decode(bytes);
}

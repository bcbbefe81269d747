/** Keep the head and the tail of a long output, with a note of what was cut. `capOutput("x".repeat(10), 4)` */
export function capOutput(text: string, maxChars: number): string {
  return capped(text, text, text.length, maxChars);
}

/** The capped text from the first and the last characters of a text `total` long (each at least `maxChars` when cut). */
function capped(head: string, tail: string, total: number, maxChars: number): string {
  if (total <= maxChars) return head;
  const headLen = Math.floor(maxChars * 0.4);
  const tailLen = maxChars - headLen;
  return `${head.slice(0, headLen)}\n… [${total - headLen - tailLen} characters cut] …\n${tail.slice(tail.length - tailLen)}`;
}

export interface OutputCapture {
  push(chunk: string): void;
  /** What {@link capOutput} gives for everything pushed. */
  text(): string;
}

/**
 * Collects a stream's text in bounded memory, however much a process prints: the first `maxChars` characters and a
 * rolling window of the last ones, which is all {@link capOutput} keeps of it.
 */
export function createOutputCapture(maxChars: number): OutputCapture {
  let head = "";
  let tail = "";
  let total = 0;
  return {
    push(chunk) {
      total += chunk.length;
      if (head.length < maxChars) {
        const room = maxChars - head.length;
        head += chunk.slice(0, room);
        chunk = chunk.slice(room);
      }
      tail += chunk;
      // Trimmed in steps, not on every chunk: at least the last maxChars characters stay.
      if (tail.length > 2 * maxChars) tail = tail.slice(tail.length - maxChars);
    },
    text() {
      const kept = head + tail;
      return kept.length === total ? capOutput(kept, maxChars) : capped(head, tail, total, maxChars);
    },
  };
}

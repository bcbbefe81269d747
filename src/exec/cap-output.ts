/** Keep the head and the tail of a long output, with a note of what was cut. `capOutput("x".repeat(10), 4)` */
export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.4);
  const tail = maxChars - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n… [${cut} characters cut] …\n${text.slice(text.length - tail)}`;
}

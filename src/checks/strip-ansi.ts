/**
 * Tool output as plain text: ANSI colour/cursor sequences removed (CSI, OSC hyperlinks, two-byte escapes), and a
 * line redrawn with carriage returns (progress bars, spinners) reduced to what was last drawn on it.
 *
 * @example stripAnsi("\u001b[31mred\u001b[0m") // "red"
 */
export function stripAnsi(text: string): string {
  const plain = text.replace(
    /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g,
    "",
  );
  return plain
    .split("\n")
    .map((line) => {
      const body = line.endsWith("\r") ? line.slice(0, -1) : line; // CRLF line ends are not redraws
      const i = body.lastIndexOf("\r");
      return i < 0 ? body : body.slice(i + 1);
    })
    .join("\n");
}

/** A write the workspace refused because the path would leave the checkout or touch forbidden files. */
export class UnsafePathError extends Error {
  override name = "UnsafePathError";
  constructor(readonly path: string, reason: string) {
    super(`Refused to write \`${path}\`: ${reason}.`);
  }
}

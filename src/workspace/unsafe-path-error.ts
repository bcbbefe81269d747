/** A write the workspace refused because the path would leave the checkout or touch forbidden files. */
export class UnsafePathError extends Error {
  override name = "UnsafePathError";
  /** `message` is the full sentence, e.g. "Refused to edit `../x`: `..` would leave the repository." */
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

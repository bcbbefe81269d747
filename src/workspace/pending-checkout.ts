/**
 * A checkout whose git already holds its commit (objects, HEAD) while `read-tree` still writes its files (see
 * `clone`'s `onTree`): what needs no work tree (the file list, blobs by id) can be read meanwhile.
 */
export interface PendingCheckout {
  /** The commit whose files are being written. */
  commit: string;
  /**
   * Settles once the files are written: true when they are `commit`'s, false when another checkout replaced that one
   * (the mirror's failed and a plain clone was made). Rejects when no checkout could be made.
   */
  written: Promise<boolean>;
}

/** Whether `pending` has settled yet (written, replaced or failed), for code that must not wait on it. */
export function watchPending(pending: PendingCheckout | undefined): () => boolean {
  if (!pending) return () => true;
  let settled = false;
  pending.written.then(
    () => (settled = true),
    () => (settled = true),
  );
  return () => settled;
}

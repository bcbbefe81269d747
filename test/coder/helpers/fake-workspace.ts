import type { FileChanges, FileSnapshot } from "../../../src/edits/types.js";
import type { Workspace } from "../../../src/workspace/types.js";

/** An in-memory checkout: path → content. `original` keeps the starting state for diff stats. */
export interface FakeWorkspace extends Workspace {
  files: Map<string, string>;
  original: ReadonlyMap<string, string>;
  writes: FileChanges[];
}

export function fakeWorkspace(initial: Record<string, string>): FakeWorkspace {
  const files = new Map(Object.entries(initial));
  const writes: FileChanges[] = [];
  return {
    root: "/repo",
    files,
    original: new Map(files),
    writes,
    async read(paths: readonly string[]): Promise<FileSnapshot> {
      const out = new Map<string, string>();
      for (const p of paths) {
        const content = files.get(p);
        if (content !== undefined) out.set(p, content);
      }
      return { files: out };
    },
    async write(changes: FileChanges): Promise<void> {
      writes.push(new Map(changes));
      for (const [p, content] of changes) {
        if (content === null) files.delete(p);
        else files.set(p, content);
      }
    },
    async listFiles(): Promise<string[]> {
      return [...files.keys()].sort();
    },
  };
}

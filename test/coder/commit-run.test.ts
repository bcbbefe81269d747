import { commitRun } from "../../src/coder/commit-run.js";
import type { CommitRequest, CommitResult } from "../../src/workspace/types.js";
import { coderOptions, fakeDeps } from "./helpers/fake-deps.js";

/** Fake deps whose `prepareCommit` records what it is asked; `refuse` makes its commit throw like a hook would. */
function withPrepared(diff: string, refuse = false) {
  const deps = fakeDeps({
    files: { "src/fetch.ts": "old\n" },
    answers: [],
    commitMessage: "feat: from the weak model",
  });
  const seen = {
    prepared: [] as string[][],
    committed: [] as Omit<CommitRequest, "paths">[],
    diffStats: 0,
    diffText: 0,
    diffsToModel: [] as string[],
  };
  deps.diffStats = async (paths) => {
    seen.diffStats++;
    return paths.map((path) => ({ path, added: 1, removed: 0 }));
  };
  deps.diffText = async () => {
    seen.diffText++;
    return "unused";
  };
  deps.generateCommitMessage = async (d) => {
    seen.diffsToModel.push(d);
    return "feat: from the weak model";
  };
  deps.prepareCommit = async (paths) => {
    seen.prepared.push([...paths]);
    return {
      diff,
      async commit(req): Promise<CommitResult> {
        seen.committed.push(req);
        if (refuse) throw new Error("A git hook refused the commit");
        return { sha: "f".repeat(40), subject: req.subject, stats: [{ path: "src/fetch.ts", added: 2, removed: 1 }] };
      },
    };
  };
  return { deps, seen };
}

describe("commitRun through prepareCommit", () => {
  it("commits with the prepared diff shown to the weak model, and asks for no separate stats or diff", async () => {
    const { deps, seen } = withPrepared("diff --git a/src/fetch.ts b/src/fetch.ts\n");
    const result = await commitRun(deps, coderOptions({ coAuthor: undefined }), ["src/fetch.ts"], "Because.");
    expect(result).toEqual({
      kind: "committed",
      editedFiles: [{ path: "src/fetch.ts", added: 2, removed: 1 }],
      commit: { sha: "f".repeat(40), subject: "feat: from the weak model" },
    });
    expect(seen.prepared).toEqual([["src/fetch.ts"]]);
    expect(seen.diffsToModel).toEqual(["diff --git a/src/fetch.ts b/src/fetch.ts\n"]);
    expect(seen.committed[0]).toMatchObject({ subject: "feat: from the weak model" });
    expect(seen.committed[0]).not.toHaveProperty("paths");
    expect([seen.diffStats, seen.diffText]).toEqual([0, 0]);
  });

  it("an empty prepared diff is nothing changed, without a commit", async () => {
    const { deps, seen } = withPrepared("");
    expect(await commitRun(deps, coderOptions(), ["src/fetch.ts"], "")).toEqual({ kind: "nothing-changed" });
    expect(seen.committed).toHaveLength(0);
  });

  it("a refused commit is a failed check with the files' stats asked for then", async () => {
    const { deps, seen } = withPrepared("diff --git a/src/fetch.ts b/src/fetch.ts\n", true);
    const result = await commitRun(deps, coderOptions(), ["src/fetch.ts"], "");
    expect(result.kind).toBe("commit-failed");
    if (result.kind !== "commit-failed") return;
    expect(result.report.output).toContain("hook refused");
    expect(result.editedFiles).toEqual([{ path: "src/fetch.ts", added: 1, removed: 0 }]);
    expect(seen.diffStats).toBe(1);
  });

  it("without committing (commit: false) only the stats are asked for", async () => {
    const { deps, seen } = withPrepared("diff");
    const result = await commitRun(deps, coderOptions({ commit: false }), ["src/fetch.ts"], "");
    expect(result).toEqual({
      kind: "committed",
      editedFiles: [{ path: "src/fetch.ts", added: 1, removed: 0 }],
      commit: null,
    });
    expect(seen.prepared).toHaveLength(0);
  });
});

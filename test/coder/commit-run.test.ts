import { commitRun } from "../../src/coder/commit-run.js";
import type { CoderResult, FileStat } from "../../src/coder/types.js";
import type { CommitChanges } from "../../src/workspace/read-commit-changes.js";
import type { CommitRequest, CommitResult } from "../../src/workspace/types.js";
import { coderOptions, fakeDeps } from "./helpers/fake-deps.js";
import { changedResult } from "../../testkit/builders/run-fixtures.js";

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

describe("commitRun with a driver that publishes ahead", () => {
  const diff =
    "diff --git a/src/fetch.ts b/src/fetch.ts\n--- a/src/fetch.ts\n+++ b/src/fetch.ts\n@@ -1 +1,2 @@\n-old\n+new\n+more\n";
  const read: CommitChanges = {
    parent: "a".repeat(40),
    message: "feat: from the weak model\n",
    entries: [{ status: "M", srcMode: "100644", dstMode: "100644", dstOid: "b".repeat(40), path: "src/fetch.ts" }],
    bytes: 9,
    contents: new Map([["src/fetch.ts", Buffer.from("new\nmore\n")]]),
  };
  const aheadOf = (deps: ReturnType<typeof withPrepared>["deps"], refuse = false) => {
    const order: string[] = [];
    const offered: { commit: CommitChanges; result: CoderResult; commitLocally: () => Promise<string | null> }[] = [];
    const prepare = deps.prepareCommit!;
    deps.prepareCommit = async (paths, made) => {
      const prepared = await prepare(paths, made);
      return {
        ...prepared,
        ahead: async (req, maxBytes) => (order.push(`read ${req.subject} ${maxBytes}`), read),
        async commit(req) {
          order.push("git commit");
          if (refuse) throw new Error("fatal: Unable to create '.git/index.lock': No space left on device");
          return prepared.commit(req);
        },
      };
    };
    deps.publishAhead = {
      maxBytes: 1234,
      offer: (commit, result, commitLocally) => (
        order.push("offer"),
        offered.push({ commit, result, commitLocally }),
        true
      ),
    };
    return { order, offered };
  };
  const resultOf = (commit: { sha: string; subject: string }, editedFiles: FileStat[]): CoderResult =>
    changedResult({ editedFiles, commit });

  it("offers the commit as read ahead, with the run's result were it made, and makes no local commit once it is sent", async () => {
    const { deps } = withPrepared(diff);
    const { order, offered } = aheadOf(deps);
    const result = await commitRun(deps, coderOptions({ coAuthor: undefined }), ["src/fetch.ts"], "", null, resultOf);
    expect(order).toEqual(["read feat: from the weak model 1234", "offer"]);
    expect(offered[0]!.commit).toBe(read);
    expect(offered[0]!.result).toMatchObject({
      outcome: "changed",
      editedFiles: [{ path: "src/fetch.ts", added: 2, removed: 1 }],
      commit: { sha: "", subject: "feat: from the weak model" },
    });
    expect(result).toEqual({
      kind: "committed",
      editedFiles: [{ path: "src/fetch.ts", added: 2, removed: 1 }],
      commit: { sha: "", subject: "feat: from the weak model" },
    });
  });

  it("makes the local commit only when the driver asks (git must push after all): the files as sent, then git's commit", async () => {
    const { deps, seen } = withPrepared(diff);
    const { order, offered } = aheadOf(deps);
    await commitRun(deps, coderOptions(), ["src/fetch.ts"], "", null, resultOf);
    await deps.workspace.write(new Map([["src/fetch.ts", null]]));
    await expect(offered[0]!.commitLocally()).resolves.toBe("f".repeat(40));
    expect(order).toEqual(["read feat: from the weak model 1234", "offer", "git commit"]);
    expect((await deps.workspace.read(["src/fetch.ts"])).files.get("src/fetch.ts")).toBe("new\nmore\n");
    expect(seen.committed.at(-1)).toMatchObject({ subject: "feat: from the weak model" });
  });

  it("a local commit git cannot make is null to the driver", async () => {
    const { deps } = withPrepared(diff);
    const { offered } = aheadOf(deps, true);
    const result = await commitRun(deps, coderOptions(), ["src/fetch.ts"], "", null, resultOf);
    expect(result).toMatchObject({ kind: "committed", commit: { sha: "" } });
    await expect(offered[0]!.commitLocally()).resolves.toBeNull();
  });

  it("when nothing was sent (the read found a hook, or the run would not publish it), git's failure is the run's", async () => {
    const { deps } = withPrepared(diff);
    aheadOf(deps, true);
    deps.publishAhead = { maxBytes: 1, offer: () => false };
    const result = await commitRun(deps, coderOptions(), ["src/fetch.ts"], "", null, resultOf);
    expect(result.kind).toBe("commit-failed");
  });
});

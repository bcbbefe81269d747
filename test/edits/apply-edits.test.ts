import { applyEdits, editPaths } from "../../src/edits/apply-edits.js";
import type { ApplyOutcome, Edit, EditFormat, FileSnapshot } from "../../src/edits/types.js";

/** A format that records what it was given and uppercases every file it is asked about. */
function recordingFormat(extra: (snapshot: FileSnapshot) => Partial<ApplyOutcome> = () => ({})) {
  const seen: { files: Map<string, string>; edits: Edit[]; chatFiles: readonly string[] }[] = [];
  const format: Pick<EditFormat, "apply"> = {
    apply(snapshot, edits, options) {
      seen.push({ files: new Map(snapshot.files), edits: [...edits], chatFiles: options.chatFiles });
      const changes = new Map<string, string | null>();
      for (const e of edits)
        changes.set(e.path, e.kind === "whole" ? e.content : (snapshot.files.get(e.path) ?? "").toUpperCase());
      return {
        changes,
        applied: edits.map((edit) => ({ path: edit.path, rung: "whole" as const, edit })),
        failed: [],
        ...extra(snapshot),
      };
    },
  };
  return { format, seen };
}

const whole = (path: string, content: string): Edit => ({ kind: "whole", path, content });

describe("applyEdits", () => {
  it("hands the format LF-only files and restores each file's own line endings and final newline", () => {
    const { format, seen } = recordingFormat();
    const snapshot = {
      files: new Map([
        ["crlf.txt", "a\r\nb\r\n"],
        ["nofinal.txt", "x\ny"],
        ["lf.txt", "p\n"],
      ]),
    };
    const edits = [whole("crlf.txt", "a\nB\nc\n"), whole("nofinal.txt", "x\nY\n"), whole("lf.txt", "q\n")];
    const out = applyEdits(format, snapshot, edits, { chatFiles: [] });
    for (const content of seen[0]!.files.values()) expect(content).not.toContain("\r");
    expect(Object.fromEntries(out.changes)).toEqual({
      "crlf.txt": "a\r\nB\r\nc\r\n",
      "nofinal.txt": "x\nY",
      "lf.txt": "q\n",
    });
  });

  it("gives new files the repository's majority line ending", () => {
    const { format } = recordingFormat();
    const snapshot = {
      files: new Map([
        ["a.txt", "a\r\n"],
        ["b.txt", "b\r\n"],
        ["c.txt", "c\n"],
      ]),
    };
    expect(applyEdits(format, snapshot, [whole("new.txt", "n\nm\n")], { chatFiles: [] }).changes.get("new.txt")).toBe(
      "n\r\nm\r\n",
    );
  });

  it("fails refused edits with their reason and never passes them to the format", () => {
    const { format, seen } = recordingFormat();
    const snapshot = {
      files: new Map([
        ["img.png", "\u0000"],
        ["ok.txt", "a\n"],
      ]),
      problems: new Map([["img.png", { reason: "unreadable" as const, message: "binary file" }]]),
    };
    const edits = [
      whole("../x", "x\n"),
      whole("img.png", "y\n"),
      whole(".github/workflows/ci.yml", "z\n"),
      whole("./ok.txt", "b\n"),
    ];
    const out = applyEdits(format, snapshot, edits, { chatFiles: ["img.png", "ok.txt", ".github/workflows/ci.yml"] });
    expect(out.failed.map((f) => [f.path, f.reason])).toEqual([
      ["../x", "unsafe-path"],
      ["img.png", "unreadable"],
      [".github/workflows/ci.yml", "unsafe-path"],
    ]);
    expect(seen[0]!.edits.map((e) => e.path)).toEqual(["ok.txt"]);
    expect(seen[0]!.files.has("img.png")).toBe(false);
    expect(seen[0]!.chatFiles).toEqual(["ok.txt"]);
    expect([...out.changes.keys()]).toEqual(["ok.txt"]);
  });

  it("drops (and reports) a change a format makes to a refused path anyway", () => {
    const { format } = recordingFormat(() => ({
      changes: new Map([[".git/config", "evil"]]),
      applied: [{ path: ".git/config", rung: "whole", edit: whole(".git/config", "evil") }],
    }));
    const out = applyEdits(format, { files: new Map() }, [whole("a.txt", "a\n")], { chatFiles: [] });
    expect(out.changes.size).toBe(0);
    expect(out.applied).toEqual([]);
    expect(out.failed.map((f) => f.reason)).toEqual(["unsafe-path"]);
  });

  it("reports no change for an edit that leaves a file as it was", () => {
    const { format } = recordingFormat();
    const out = applyEdits(format, { files: new Map([["a.txt", "a\r\n"]]) }, [whole("a.txt", "a\n")], {
      chatFiles: [],
    });
    expect(out.changes.size).toBe(0);
  });

  it("lists both paths of a move", () => {
    expect(editPaths({ kind: "patch-update", path: "a.ts", moveTo: "b.ts", body: "" })).toEqual(["a.ts", "b.ts"]);
    expect(editPaths(whole("a.ts", ""))).toEqual(["a.ts"]);
  });
});

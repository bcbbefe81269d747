import { renderReflection, summarizeFailures } from "../../src/edits/reflection.js";
import type { EditFailure } from "../../src/edits/types.js";

const edit = { kind: "replace" as const, path: "a.py", search: "x = 1\n", replace: "x = 2\n" };
const fence = ["````", "````"] as const;

describe("renderReflection", () => {
  it("is null when nothing failed", () => {
    expect(renderReflection([], 4, fence)).toBeNull();
  });

  it("shows a failed block as written, why it failed, and the closest real lines inside the chosen fence", () => {
    const f: EditFailure = {
      path: "a.py",
      reason: "no-match",
      message: "The SEARCH text does not match.",
      edit,
      detail: "x  = 1",
    };
    const text = renderReflection([f], 0, fence)!;
    expect(text).toContain("# 1 edit in your answer failed");
    expect(text).toContain("a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE");
    expect(text).toContain("Did you mean to match these actual lines from `a.py`?\n\n````\nx  = 1\n````");
    expect(text).toContain("must match only one place");
    expect(text).not.toContain("applied successfully");
  });

  it("says how many edits applied and that they must not be sent again (Aider #4098)", () => {
    const f: EditFailure = {
      path: "a.py",
      reason: "ambiguous",
      message: "Matches lines 3, 9.",
      detail: "lines 3, 9",
      edit,
    };
    const text = renderReflection([f, { ...f, path: "b.py" }], 3, fence)!;
    expect(text).toContain("# 2 edits in your answer failed");
    expect(text).toContain("# The other 3 edits were applied successfully");
    expect(text).toContain("Don't send them again");
    expect(text).toContain("fixed versions of the edits that failed");
    expect(text.match(/lines 3, 9/g)).toHaveLength(2); // from the messages, not repeated from `detail`
  });

  it("asks whether an already-applied block is needed", () => {
    const text = renderReflection(
      [{ path: "a.py", reason: "already-applied", message: "REPLACE is there.", edit }],
      1,
      fence,
    )!;
    expect(text).toContain("Its REPLACE text is already in `a.py`");
    expect(text).toContain("The other 1 edit was applied successfully");
    expect(text).toContain("Don't send it again");
  });

  it("reports parse failures without an edit, and other formats' details verbatim", () => {
    const text = renderReflection(
      [
        { path: "", reason: "missing-filename", message: "The block at line 3 names no file." },
        {
          path: "b.ts",
          reason: "elided",
          message: "The listing leaves code out.",
          detail: "line 12: // ... rest unchanged",
        },
      ],
      0,
      fence,
    )!;
    expect(text).toContain("## An edit names no file");
    expect(text).toContain("The block at line 3 names no file.");
    expect(text).toContain("line 12: // ... rest unchanged");
    expect(text).not.toContain("must match only one place");
  });

  it("returns the no-edits message alone when the answer had no edits", () => {
    const text = renderReflection(
      [{ path: "", reason: "no-edits", message: "Your answer contained no edits." }],
      0,
      fence,
    );
    expect(text).toBe("Your answer contained no edits.");
  });
});

describe("summarizeFailures", () => {
  it("lists each failure for people", () => {
    const text = summarizeFailures([
      { path: "a.py", reason: "no-match", message: "SEARCH not found." },
      { path: "", reason: "missing-filename", message: "No file named." },
    ]);
    expect(text).toBe("- `a.py` (no match): SEARCH not found.\n- `(no file)` (missing filename): No file named.");
  });
});

import { findElision } from "../../../src/edits/whole/find-elision.js";

describe("findElision", () => {
  it.each([
    "// ... rest of file unchanged ...",
    "# ... existing code ...",
    "    // ... existing code ...",
    "/* ... other methods ... */",
    "<!-- ... rest of the page unchanged ... -->",
    "{/* … keep the other routes … */}",
    "-- ... remaining queries ...",
    "# Rest of the code remains unchanged",
    "// rest of the file stays the same",
    "# existing code here",
    "// Existing implementation",
    "# keep existing imports",
    "' ... rest unchanged",
  ])("flags %j", (line) => {
    expect(findElision(`a = 1\n${line}\nb = 2\n`)).toEqual({ line: 2, text: line.trim() });
  });

  it.each([
    "...",
    "    ...",
    "const all = [...rest, ...others];",
    "# loop over the rest of the items",
    "// wait for other processes...",
    "# other imports",
    "print('... rest of file unchanged ...')",
    "// TODO: handle errors",
  ])("does not flag %j", (line) => {
    expect(findElision(`a = 1\n${line}\nb = 2\n`)).toBeNull();
  });

  it("accepts a comment that is really in the file", () => {
    expect(findElision("x\n# ... existing code ...\n", new Set(["# ... existing code ..."]))).toBeNull();
  });
});

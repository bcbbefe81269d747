import { getEditFormat, parseAndApply } from "../../src/edits/registry.js";
import { EDIT_FORMAT_NAMES } from "../../src/edits/types.js";

describe("registry", () => {
  it.each(EDIT_FORMAT_NAMES.map((n) => [n]))("registers %s under its Aider name", (name) => {
    expect(getEditFormat(name).name).toBe(name);
  });

  it.each([["editblock"], ["constructor"], ["toString"], [""]])("refuses %j and lists the valid names", (name) => {
    expect(() => getEditFormat(name)).toThrow(`Valid formats: ${EDIT_FORMAT_NAMES.join(", ")}`);
  });

  it("parses and applies by name", () => {
    const r = parseAndApply(
      "diff-fenced",
      "```python\na.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n",
      { files: new Map([["a.py", "x\n"]]) },
      {
        fence: ["```", "```"],
        chatFiles: ["a.py"],
      },
    );
    expect(r.format.name).toBe("diff-fenced");
    expect(r.outcome.changes.get("a.py")).toBe("y\n");
    expect(r.reflection).toBeNull();
  });
});

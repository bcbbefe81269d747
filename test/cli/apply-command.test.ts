import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCli } from "../helpers/run-cli.js";

describe("aider-bot apply", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "apply-cli-"));
    await writeFile(path.join(root, "m.py"), "def f():\n    return 1\n");
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const answer =
    "Change it:\n\nm.py\n```python\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n```\n\n```bash\npython -m pytest\n```\n";

  it("applies an answer from stdin and prints the documented JSON (exit 0)", async () => {
    const r = await runCli(["apply", "--root", root, "--file", "m.py", "--json", "-"], { input: answer });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      format: "diff",
      edits: [{ path: "m.py", kind: "replace", search: "    return 1\n", replace: "    return 2\n" }],
      shell: ["python -m pytest"],
      applied: [{ path: "m.py", rung: "exact" }],
      failed: [],
      reflection: null,
    });
    expect(await readFile(path.join(root, "m.py"), "utf8")).toBe("def f():\n    return 2\n");
  });

  it("--dry-run matches without writing; a failure exits 1 with a reflection", async () => {
    const file = path.join(root, "answer.txt");
    await writeFile(file, answer.replace("return 1", "return 9"));
    const r = await runCli(["apply", "--root", root, "--dry-run", "--json", file]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.failed).toEqual([expect.objectContaining({ path: "m.py", reason: "no-match" })]);
    expect(out.reflection).toContain("did not match");
    expect(await readFile(path.join(root, "m.py"), "utf8")).toBe("def f():\n    return 1\n");
  });

  it("exits 2 on usage errors", async () => {
    expect((await runCli(["apply", "--root", root, "--edit-format", "nope", "-"])).code).toBe(2);
    expect((await runCli(["apply", "--root", path.join(root, "missing"), "-"])).code).toBe(2);
    expect((await runCli(["apply"])).code).toBe(2);
  });

  it("says why a response file cannot be read and what to pass instead", async () => {
    const r = await runCli(["apply", "--root", root, path.join(root, "no-such-answer.txt")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /cannot read the response file .*no-such-answer\.txt \(ENOENT\); pass a readable file, or - for stdin/,
    );
  });
});

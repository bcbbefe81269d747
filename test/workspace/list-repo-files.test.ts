import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { testExec } from "../helpers/test-exec.js";
import { filterIgnored } from "../../src/repomap/filter-ignored.js";
import { listRepoFiles } from "../../src/workspace/list-repo-files.js";

let root: string;
const put = async (rel: string, content = "x\n") => {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), content);
};

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "repomap-list-"));
  await put(".gitignore", "dist/\n*.log\n");
  await put("src/a.ts");
  await put("src/gen/.gitignore", "out.ts\n");
  await put("src/gen/out.ts");
  await put("src/gen/keep.ts");
  await put("dist/bundle.js");
  await put("debug.log");
  await put("node_modules/dep/index.js");
  await put("logo.png", "\u0000PNG");
  await put(".aider-bot-cache/tags/tags.json", "{}");
  await put("big.ts", "x".repeat(2000));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("listRepoFiles", () => {
  test("walking a plain directory applies root and nested .gitignore files and skips junk", async () => {
    expect(await listRepoFiles(root, { maxFileBytes: 1000 })).toEqual([
      ".gitignore",
      "src/a.ts",
      "src/gen/.gitignore",
      "src/gen/keep.ts",
    ]);
  });

  test("in a git checkout, git lists tracked and untracked-not-ignored files", async () => {
    const exec = testExec({ sourceEnv: process.env });
    const init = await exec.run({ command: "git", args: ["init", "-q"], cwd: root });
    expect(init.exitCode).toBe(0);
    const files = await listRepoFiles(root, { exec });
    expect(files).toContain("src/a.ts");
    expect(files).toContain("big.ts");
    expect(files).not.toContain("dist/bundle.js");
    expect(files).not.toContain("debug.log");
    expect(files).not.toContain("src/gen/out.ts");
    expect(files.some((f) => f.startsWith(".aider-bot-cache/"))).toBe(false);
  });
});

describe("filterIgnored", () => {
  test("applies .aiderignore with gitignore syntax, and keeps everything without one", async () => {
    const files = ["src/a.ts", "src/gen/keep.ts", "docs/x.md"];
    expect(await filterIgnored(root, files)).toEqual(files);
    await put(".aiderignore", "src/gen/\n*.md\n!docs/keep.md\n");
    expect(await filterIgnored(root, [...files, "docs/keep.md"])).toEqual(["src/a.ts", "docs/keep.md"]);
  });
});

test("a .gitignore or .aiderignore linked out of the checkout is not read", async () => {
  const outside = await mkdtemp(path.join(os.tmpdir(), "repomap-list-outside-"));
  try {
    await writeFile(path.join(outside, "rules"), "*.ts\n");
    await symlink(path.join(outside, "rules"), path.join(root, "src", ".gitignore"));
    await symlink(path.join(outside, "rules"), path.join(root, ".aiderignore"));
    const files = await listRepoFiles(root);
    expect(files).toContain("src/a.ts");
    expect(await filterIgnored(root, files)).toContain("src/a.ts");
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
});

import { readFileSync } from "node:fs";
import { appendFile, cp, mkdtemp, rm, stat, utimes, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { countTokens, loadTokenizer } from "../../src/llm/count-tokens.js";
import { buildRepoMap } from "../../src/repomap/build-repo-map.js";
import { listRepoFiles } from "../../src/workspace/list-repo-files.js";
import { contentHash } from "../../src/repomap/tag-cache.js";
import { waitUntil } from "../helpers/wait-until.js";

const SAMPLE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/repomap/sample");
let root: string;
let files: string[];

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "repomap-build-"));
  await cp(SAMPLE, root, { recursive: true });
  // Ignored by the sample's .gitignore (build/) and .aiderignore (vendor/); created here so git never sees them.
  await mkdir(path.join(root, "build"));
  await mkdir(path.join(root, "vendor"));
  await writeFile(path.join(root, "build/generated.ts"), "export function generatedHelper() { return 1; }\n");
  await writeFile(path.join(root, "vendor/thirdparty.ts"), "export function vendoredHelper() { return 2; }\n");
  files = await listRepoFiles(root);
  await loadTokenizer();
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("buildRepoMap on the multi-language sample", () => {
  test("the map shows top definitions with their scopes, best-referenced files first", async () => {
    const map = await buildRepoMap({ root, files });
    // formatTitle is used by two other files, more than any other name: its file leads.
    expect(map.rankedFiles[0]).toBe("src/format.js");
    expect(map.text.startsWith("src/format.js:\n│export function formatTitle(title) {\n")).toBe(true);
    // A method is shown under its class header, with ⋮ for the skipped rows.
    expect(map.text).toMatch(
      /src\/store\.ts:\n(?:.*\n)*│export class TodoStore \{\n(?:.*\n)*│ {2}filterTodos\(filter: TodoFilter\): Todo\[\] \{/,
    );
    expect(map.text).toContain("py/inventory.py:\n⋮\n│class Car:\n");
    for (const lang of ["go/server.go:", "rust/lib.rs:", "java/Main.java:", "ruby/greeter.rb:", "php/cart.php:"]) {
      expect(map.text).toContain(lang);
    }
    for (const line of map.text.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
    expect(map.stats.tokens).toBe(countTokens(map.text));
    expect(map.stats.tokens).toBeLessThanOrEqual(1024);
  });

  test(".gitignore (when walking) and .aiderignore are respected", async () => {
    expect(files).toContain("src/store.ts");
    expect(files).not.toContain("build/generated.ts");
    expect(files).toContain("vendor/thirdparty.ts");
    const map = await buildRepoMap({ root, files, mapTokens: 8192 });
    expect(map.rankedFiles).not.toContain("vendor/thirdparty.ts");
    expect(map.text).not.toContain("vendoredHelper");
    expect(map.rankedFiles).toContain("docs/README.md");
  });

  test("mentions move files up; chat files steer the ranking but are not shown", async () => {
    const base = await buildRepoMap({ root, files });
    const mentioned = await buildRepoMap({ root, files, mentionedIdents: ["park_car", "Garage"] });
    expect(base.rankedFiles.indexOf("py/inventory.py")).toBeGreaterThan(0);
    expect(mentioned.rankedFiles.indexOf("py/inventory.py")).toBeLessThan(base.rankedFiles.indexOf("py/inventory.py"));
    // A word naming a file (its stem) personalises the ranking towards that file.
    const stem = await buildRepoMap({ root, files, mentionedIdents: ["inventory"] });
    expect(stem.rankedFiles.indexOf("py/inventory.py")).toBeLessThan(base.rankedFiles.indexOf("py/inventory.py"));
    const byFile = await buildRepoMap({ root, files, mentionedFiles: ["rust/lib.rs"] });
    expect(byFile.rankedFiles.indexOf("rust/lib.rs")).toBeLessThan(base.rankedFiles.indexOf("rust/lib.rs"));

    const chat = await buildRepoMap({ root, files, chatFiles: ["src/app.tsx"] });
    expect(chat.rankedFiles).not.toContain("src/app.tsx");
    expect(chat.text).not.toContain("src/app.tsx");
    expect(chat.rankedFiles.indexOf("src/store.ts")).toBeLessThan(base.rankedFiles.indexOf("src/store.ts"));
  });

  test("the budget holds: never over, and at least 85 % of it when there is enough to show", async () => {
    for (const mapTokens of [128, 300, 700]) {
      const map = await buildRepoMap({ root, files, mapTokens });
      const tokens = countTokens(map.text);
      expect(tokens).toBeLessThanOrEqual(mapTokens);
      expect(tokens).toBeGreaterThanOrEqual(0.85 * mapTokens);
    }
    expect((await buildRepoMap({ root, files, mapTokens: 0 })).text).toBe("");
  });

  test("a second build re-parses nothing; a changed file alone is re-parsed; a touch only re-hashes", async () => {
    const cacheDir = path.join(root, ".aider-bot-cache/tags");
    const first = await buildRepoMap({ root, files });
    expect(first.stats.parsed).toBeGreaterThan(10);
    expect(first.stats.cacheHits).toBe(0);

    const second = await buildRepoMap({ root, files, mentionedIdents: ["completely", "different"] });
    expect(second.stats.parsed).toBe(0);
    expect(second.stats.cacheHits).toBe(first.stats.parsed);

    await appendFile(path.join(root, "go/server.go"), "\nfunc BrandNewFunction() {}\n");
    const future = new Date(Date.now() + 5000);
    await utimes(path.join(root, "rust/lib.rs"), future, future);
    const third = await buildRepoMap({ root, files, cacheDir, mapTokens: 8192 });
    expect(third.stats.parsed).toBe(1);
    expect(third.stats.cacheHits).toBe(first.stats.parsed - 1);
    expect(third.text).toContain("│func BrandNewFunction() {}");
  });

  test("a fresh clone with git's content ids is served from the cache: no file read, nothing parsed, nothing saved", async () => {
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), "repomap-ids-"));
    try {
      const first = await buildRepoMap({ root, files, cacheDir });
      const ids = new Map(files.map((f) => [f, contentHash(readFileSync(path.join(root, f)))]));
      const saved = (await stat(path.join(cacheDir, "tags.bin"))).mtimeMs;
      // Another checkout of the same commit, its files not even on disk: only the ids and the cache can answer.
      const clone = await mkdtemp(path.join(os.tmpdir(), "repomap-clone-"));
      const fromIds = await buildRepoMap({ root: clone, files, cacheDir, contentIds: ids });
      await rm(clone, { recursive: true, force: true });
      expect(fromIds.stats.parsed).toBe(0);
      expect(fromIds.stats.cacheHits).toBe(first.stats.parsed);
      expect(fromIds.text).toBe(first.text);
      expect((await stat(path.join(cacheDir, "tags.bin"))).mtimeMs).toBe(saved);

      // A file git does not vouch for (edited) is read and parsed; one whose id the cache lacks is parsed too.
      await appendFile(path.join(root, "go/server.go"), "\nfunc BrandNewFunction() {}\n");
      ids.delete("go/server.go");
      ids.set("rust/lib.rs", "0".repeat(40));
      const edited = await buildRepoMap({ root, files, cacheDir, contentIds: ids, mapTokens: 8192 });
      expect(edited.stats.parsed).toBe(2);
      expect(edited.text).toContain("│func BrandNewFunction() {}");
      expect(edited.text).toContain("rust/lib.rs:");
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  test("ids from git's index are used while git still checks the work tree, and the map is rebuilt if it used a modified file's", async () => {
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), "repomap-early-"));
    // Git's second answer, released by the test: the early map is ready before it.
    const later = () => {
      let answer: (modified: ReadonlySet<string> | null) => void = () => {};
      const promise = new WatchedPromise<ReadonlySet<string> | null>((resolve) => (answer = resolve));
      return { promise, answer };
    };
    try {
      const first = await buildRepoMap({ root, files, cacheDir, mapTokens: 8192 });
      const ids = new Map(files.map((f) => [f, contentHash(readFileSync(path.join(root, f)))]));
      const saved = (await stat(path.join(cacheDir, "tags.bin"))).mtimeMs;

      // Nothing modified: the early map stands; nothing parsed, the cache untouched.
      const clean = later();
      const building = buildRepoMap({
        root,
        files,
        cacheDir,
        mapTokens: 8192,
        contentIds: ids,
        modifiedSinceIds: clean.promise,
      });
      let settled = false;
      void building.then(() => (settled = true));
      // The early map is built and the build now waits for git's answer: it does not end without it.
      await waitUntil(() => clean.promise.waited, "the build to wait for git's answer");
      expect(settled).toBe(false);
      clean.answer(new Set(["README.md"].filter((f) => !ids.has(f))));
      const early = await building;
      expect(early.stats.parsed).toBe(0);
      expect(early.text).toBe(first.text);
      expect((await stat(path.join(cacheDir, "tags.bin"))).mtimeMs).toBe(saved);

      // The index still names the old content of go/server.go, but the work tree changed it: rebuilt, re-parsed.
      await appendFile(path.join(root, "go/server.go"), "\nfunc BrandNewFunction() {}\n");
      const edited = later();
      edited.answer(new Set(["go/server.go"]));
      const rebuilt = await buildRepoMap({
        root,
        files,
        cacheDir,
        mapTokens: 8192,
        contentIds: ids,
        modifiedSinceIds: edited.promise,
      });
      expect(rebuilt.stats.parsed).toBe(1);
      expect(rebuilt.text).toContain("│func BrandNewFunction() {}");

      // Git could not say (null): no id is trusted, every file is hashed from disk, and the map is still right.
      const failed = later();
      failed.answer(null);
      const unsure = await buildRepoMap({
        root,
        files,
        cacheDir,
        mapTokens: 8192,
        contentIds: ids,
        modifiedSinceIds: failed.promise,
      });
      expect(unsure.stats.parsed).toBe(0);
      expect(unsure.text).toBe(rebuilt.text);

      // An id the cache lacks: no early map, since the file would be read and its tags taken for that id on git's
      // word alone. Here the work tree changed rust/lib.rs (git reports it modified) while rust/copy.rs holds the
      // committed content under the same id: the copy must get the committed content's tags, not the edit's.
      const base = readFileSync(path.join(root, "rust/lib.rs"), "utf8");
      const committed = `${base}\npub fn from_commit() {}\n`;
      await writeFile(path.join(root, "rust/lib.rs"), `${base}\npub fn from_work_tree() {}\n`);
      await writeFile(path.join(root, "rust/copy.rs"), committed);
      ids.set("go/server.go", contentHash(readFileSync(path.join(root, "go/server.go"))));
      ids.set("rust/lib.rs", contentHash(committed));
      ids.set("rust/copy.rs", contentHash(committed));
      const dirty = later();
      dirty.answer(new Set(["rust/lib.rs"]));
      const withCopy = [...files, "rust/copy.rs"];
      const waited = await buildRepoMap({
        root,
        files: withCopy,
        cacheDir,
        mapTokens: 8192,
        contentIds: ids,
        modifiedSinceIds: dirty.promise,
      });
      expect(waited.stats.parsed).toBe(2);
      expect(waited.text).toMatch(/rust\/lib\.rs:\n(?:│.*\n|⋮\n)*│pub fn from_work_tree/);
      expect(waited.text).toMatch(/rust\/copy\.rs:\n(?:│.*\n|⋮\n)*│pub fn from_commit/);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  test("content can come from a reader instead of the disk", async () => {
    const map = await buildRepoMap({
      root,
      files: ["mem/a.py", "mem/b.py"],
      cacheDir: null,
      readFile: async (rel) => (rel === "mem/a.py" ? "def shared_helper():\n    return 1\n" : "shared_helper()\n"),
    });
    expect(map.text).toBe("mem/a.py:\n│def shared_helper():\n⋮\n\nmem/b.py\n");
    expect(map.stats.parsed).toBe(2);
  });
});

describe("buildRepoMap on a checkout with committed symbolic links", () => {
  test("a committed `settings.py -> /outside/file` is not read: the outside file's content is not in the map", async () => {
    const { createExec } = await import("../../src/exec/create-exec.js");
    const { symlink } = await import("node:fs/promises");
    const exec = createExec({ sourceEnv: { PATH: process.env.PATH, HOME: os.tmpdir() } });
    const git = async (...args: string[]) => {
      const r = await exec.run({
        command: "git",
        args,
        cwd: repo,
        env: { GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@x" },
      });
      expect(r.exitCode).toBe(0);
    };
    const repo = await mkdtemp(path.join(os.tmpdir(), "repomap-link-"));
    const outside = await mkdtemp(path.join(os.tmpdir(), "repomap-outside-"));
    try {
      await writeFile(
        path.join(outside, "file.py"),
        "class LeakedSecretSettings:\n    def leaked_secret_key(self):\n        return 'hunter2'\n",
      );
      await writeFile(
        path.join(repo, "app.py"),
        "from settings import LeakedSecretSettings\n\ndef main():\n    return LeakedSecretSettings().leaked_secret_key()\n",
      );
      await writeFile(path.join(repo, "real.py"), "class InsideSettings:\n    pass\n");
      await symlink(path.join(outside, "file.py"), path.join(repo, "settings.py"));
      await symlink("real.py", path.join(repo, "alias.py"));
      // An ignore file linked out of the checkout is not read either (here it would hide app.py).
      await writeFile(path.join(outside, "ignore"), "app.py\n");
      await symlink(path.join(outside, "ignore"), path.join(repo, ".aiderignore"));
      await git("init", "-q", "-b", "main");
      await git("add", "-A");
      await git("commit", "-q", "-m", "links");
      const listed = await listRepoFiles(repo, { exec });
      expect(listed).toEqual([".aiderignore", "alias.py", "app.py", "real.py", "settings.py"]);
      const map = await buildRepoMap({ root: repo, files: listed, cacheDir: null, mapTokens: 4096, threads: 0 });
      expect(map.text).toContain("app.py:");
      expect(map.text).not.toContain("settings.py:");
      expect(map.text).not.toContain("class LeakedSecretSettings");
      expect(map.text).not.toContain("leaked_secret_key(self)");
      // A link to a regular file inside the checkout is still mapped, as before.
      expect(map.text).toContain("alias.py:");
    } finally {
      await rm(repo, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    }
  });

  test("a link keys no cache entry by its target's size and time: pointed elsewhere, it is read again", async () => {
    const { symlink, unlink, utimes } = await import("node:fs/promises");
    const repo = await mkdtemp(path.join(os.tmpdir(), "repomap-relink-"));
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), "repomap-relink-cache-"));
    try {
      // Same size and modification time: only the content tells them apart.
      await writeFile(path.join(repo, "one.py"), "def first_target():\n    pass\n");
      await writeFile(path.join(repo, "two.py"), "def other_target():\n    pass\n");
      const when = new Date("2024-01-01T00:00:00Z");
      for (const f of ["one.py", "two.py"]) await utimes(path.join(repo, f), when, when);
      await symlink("one.py", path.join(repo, "alias.py"));
      const build = () => buildRepoMap({ root: repo, files: ["alias.py"], cacheDir, mapTokens: 4096, threads: 0 });
      expect((await build()).text).toContain("first_target");
      await unlink(path.join(repo, "alias.py"));
      await symlink("two.py", path.join(repo, "alias.py"));
      const again = await build();
      expect(again.text).toContain("other_target");
      expect(again.text).not.toContain("first_target");
    } finally {
      await rm(repo, { recursive: true, force: true });
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});

/** A promise that notes when it is first waited on (`await` calls `then` on a Promise subclass). */
class WatchedPromise<T> extends Promise<T> {
  waited = false;
  override then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.waited = true;
    return super.then(onFulfilled, onRejected);
  }
}

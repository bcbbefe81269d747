import { mkdtemp, rm, stat, utimes, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { testExec } from "../helpers/test-exec.js";
import { createLlmClient } from "../../src/llm/create-llm-client.js";
import { createCoderDeps, warmGrammarWhileCloning } from "../../src/compose/create-coder-deps.js";
import { loadedLanguage } from "../../src/checks/ready-languages.js";
import { grammarWarming } from "../../src/checks/syntax-check.js";
import { compiledTagQueries } from "../../src/repomap/extract-tags.js";
import { waitUntil } from "../helpers/wait-until.js";
import { createGit } from "../../src/workspace/create-git.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

const exec = testExec({ sourceEnv: { PATH: process.env.PATH, HOME: os.tmpdir() } });
const git = createGit(exec, { name: "Test", email: "test@example.com" });
const llm = createLlmClient({ baseUrl: "http://127.0.0.1:9", apiKey: "unused", redact: createSecretRedactor().redact });

describe("createCoderDeps: the repo map in the App's fresh clone per job", () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
  const temp = async (prefix: string) => {
    const d = await mkdtemp(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };

  test("with gitContentIds a second clone is served by git's ids: the cache file is not rewritten; without them it is", async () => {
    const origin = await temp("deps-origin-");
    await git.run(origin, ["init", "-q", "-b", "main"]);
    await mkdir(path.join(origin, "src"));
    for (let i = 0; i < 5; i++) {
      await writeFile(
        path.join(origin, `src/m${i}.ts`),
        `import { f${(i + 1) % 5} } from "./m${(i + 1) % 5}.js";\nexport function f${i}(): number {\n  return f${(i + 1) % 5}();\n}\n`,
      );
    }
    await git.run(origin, ["add", "-A"]);
    await git.run(origin, ["commit", "-q", "-m", "init"]);
    const cacheDir = path.join(await temp("deps-cache-"), "repomap");
    const mapIn = async (gitContentIds: boolean, edit?: (clone: string) => Promise<void>) => {
      const clone = await temp("deps-clone-");
      await git.run(clone, ["clone", "-q", origin, "."]);
      await edit?.(clone);
      const deps = createCoderDeps({
        root: clone,
        exec,
        git,
        llm,
        protectedPaths: [],
        cacheDir,
        gitContentIds,
        mapThreads: 0,
      });
      return deps.repoMap!({ chatFiles: [], mentionedFiles: [], mentionedIdents: [], mapTokens: 1024 });
    };
    const mtime = async () => (await stat(path.join(cacheDir, "tags.bin"))).mtimeMs;

    const first = await mapIn(true);
    expect(first.text).toContain("│export function f0(): number {");
    const saved = await mtime();
    const second = await mapIn(true);
    expect(second.text).toBe(first.text);
    expect(await mtime()).toBe(saved);
    // Edited after the clone: git reports it modified, and the map has the edit, not the cached tags of the
    // index's id (which the map started from while git was checking).
    const edited = await mapIn(true, (clone) =>
      writeFile(path.join(clone, "src/m0.ts"), "export function renamedAfterClone(): number {\n  return 0;\n}\n"),
    );
    expect(edited.text).toContain("renamedAfterClone");
    expect(edited.text).not.toContain("│export function f0(): number {");
    // Without the ids every file of the new clone is read and hashed, and the cache records their new mtimes.
    // The cache file dated back a minute: a save by the next map dates it anew, whatever the clock's resolution.
    const backdated = new Date((await mtime()) - 60_000);
    await utimes(path.join(cacheDir, "tags.bin"), backdated, backdated);
    const third = await mapIn(false);
    expect(third.text).toBe(first.text);
    expect(await mtime()).toBeGreaterThan(backdated.getTime());
  });
});

describe("createCoderDeps: check output cannot make the app read files outside the checkout", () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  test("a check that links k.py to a secret and to /proc/self/environ and prints `k.py:2:1: error`: the reflection shows neither", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "deps-leak-"));
    const outside = await mkdtemp(path.join(os.tmpdir(), "deps-secret-"));
    dirs.push(root, outside);
    const secret = path.join(outside, "app-key.pem");
    await writeFile(
      secret,
      "-----BEGIN RSA PRIVATE KEY-----\nAPPKEYSECRET\nAPPKEYSECRET2\n-----END RSA PRIVATE KEY-----\n",
    );
    await writeFile(path.join(root, "ok.py"), "import os\nprint(undefined_name)\n");
    const deps = createCoderDeps({ root, exec, git, llm, protectedPaths: [] });
    // What a fork's lint script can do: plant the links, then name them in its output.
    const command = `ln -s ${secret} k.py && ln -s /proc/self/environ env.py && printf 'k.py:2:1: error: boom\\nenv.py:1:1: error: boom\\nok.py:2:7: error: undefined\\n'; exit 1`;
    const report = await deps.runCheck({
      kind: "lint",
      command,
      files: ["k.py", "env.py", "ok.py"],
      timeoutMs: 30_000,
    });
    expect(report.locations.map((l) => l.path)).toEqual(expect.arrayContaining(["k.py", "env.py", "ok.py"]));
    const text = deps.renderCheckReflection(report, ["k.py", "env.py", "ok.py"]);
    // The ordinary file's code is shown, so the reflection does read code context...
    expect(text).toContain("print(undefined_name)");
    // ...but never through a link leaving the checkout.
    expect(text).not.toContain("APPKEYSECRET");
    expect(text).not.toContain("PRIVATE KEY");
    expect(text).not.toMatch(/PATH=/);
  });
});

describe("createCoderDeps: the file list after a repository command", () => {
  test("a check command that creates a file is seen by the next file list (the listing is shared until then)", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "deps-list-"));
    try {
      await git.run(root, ["init", "-q", "-b", "main"]);
      await writeFile(path.join(root, "a.ts"), "export const a = 1;\n");
      const deps = createCoderDeps({ root, exec, git, llm, protectedPaths: [] });
      expect(await deps.workspace.listFiles()).toEqual(["a.ts"]);
      await deps.runCheck({
        kind: "test",
        command: "echo 'export const b = 1;' > made-by-test.ts",
        files: [],
        timeoutMs: 30_000,
      });
      expect(await deps.workspace.listFiles()).toEqual(["a.ts", "made-by-test.ts"]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("warmGrammarWhileCloning", () => {
  it("loads the grammar of the request's language in the background, and logs nothing when it works", async () => {
    const logged: string[] = [];
    expect(loadedLanguage("ruby")).toBeNull();
    void warmGrammarWhileCloning({ debug: (_o, msg) => void logged.push(msg) })({
      language: "Ruby",
      owner: "acme",
      repo: "widgets",
    });
    await waitUntil(
      () => loadedLanguage("ruby") !== null,
      () => "the Ruby grammar was never loaded",
    );
    expect(logged).toEqual([]);
  });

  it("on the repository's first run (no tag cache yet) also compiles the map's tag query for that language", async () => {
    const cacheRoot = await mkdtemp(path.join(os.tmpdir(), "deps-warm-"));
    try {
      const repo = { owner: "acme", repo: "widgets" };
      const warm = warmGrammarWhileCloning({ debug: () => undefined }, (r) => path.join(cacheRoot, r.owner, r.repo));
      // A repository with a tag cache: its map parses only what changed, so nothing is compiled beside the clone.
      await mkdir(path.join(cacheRoot, "acme", "cached"), { recursive: true });
      await writeFile(path.join(cacheRoot, "acme", "cached", "tags.bin"), "");
      const before = compiledTagQueries();
      await warm({ language: "Rust", owner: "acme", repo: "cached" });
      expect(compiledTagQueries()).toBe(before);
      await warm({ language: "Rust", ...repo });
      expect(compiledTagQueries()).toBe(before + 1);
      await warm({ language: "Rust", ...repo });
      expect(compiledTagQueries()).toBe(before + 1);
    } finally {
      await rm(cacheRoot, { recursive: true, force: true });
    }
  });
});

describe("createCoderDeps: grammars for the syntax check, warmed after the run's first map", () => {
  it("warms the languages of the chat files, then the most common ones, three at most", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "deps-grammars-"));
    try {
      const files: Record<string, string> = {
        "main.c": "int main(void) { return run(); }\n",
        "util.c": "int run(void) { return 0; }\n",
        "util.h": "int run(void);\n",
        "index.php": "<?php\nfunction page() { return 1; }\n",
        "admin.php": "<?php\nfunction admin() { return page(); }\n",
        "Main.java": "class Main { void go() {} }\n",
        "Api.cs": "class Api { void Call() {} }\n",
      };
      for (const [name, text] of Object.entries(files)) await writeFile(path.join(root, name), text);
      await git.run(root, ["init", "-q", "-b", "main"]);
      await git.run(root, ["add", "-A"]);
      await git.run(root, ["commit", "-q", "-m", "init"]);
      for (const id of ["c", "php", "java", "c_sharp"] as const) expect(grammarWarming(id)).toBeNull();
      const deps = createCoderDeps({ root, exec, git, llm, protectedPaths: [], mapThreads: 0 });
      await deps.repoMap!({ chatFiles: ["Api.cs"], mentionedFiles: [], mentionedIdents: [], mapTokens: 1024 });
      for (const id of ["c_sharp", "c", "php"] as const) {
        await grammarWarming(id);
        expect(loadedLanguage(id)).not.toBeNull();
      }
      expect(grammarWarming("java")).toBeNull();
      // The check then finds the grammar loaded.
      expect((await deps.syntaxCheck("Api.cs", "class Api { void Call( {} }\n"))?.ok).toBe(false);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

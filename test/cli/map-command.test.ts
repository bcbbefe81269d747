import { mkdtemp, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { testExec } from "../helpers/test-exec.js";
import { IDLE_MS } from "../../src/repomap/shared-extractor-pool.js";
import { createGit } from "../../src/workspace/create-git.js";
import { runCli } from "../helpers/run-cli.js";

const git = createGit(testExec({ sourceEnv: { PATH: process.env.PATH, HOME: os.tmpdir() } }), {
  name: "Test",
  email: "test@example.com",
});

describe("aider-bot map", () => {
  let repo: string;
  let cache: string;
  beforeAll(async () => {
    repo = await mkdtemp(path.join(os.tmpdir(), "map-cli-"));
    cache = await mkdtemp(path.join(os.tmpdir(), "map-cli-cache-"));
    await git.run(repo, ["init", "-q", "-b", "main"]);
    await mkdir(path.join(repo, "src"));
    await writeFile(
      path.join(repo, "src/store.ts"),
      "export class Store {\n  save(item: string): void {\n    console.log(item);\n  }\n}\n",
    );
    await writeFile(
      path.join(repo, "src/format.ts"),
      "export function formatItem(item: string): string {\n  return `[${item}]`;\n}\n",
    );
    await writeFile(
      path.join(repo, "src/app.ts"),
      'import { Store } from "./store.js";\nimport { formatItem } from "./format.js";\nexport function main(): void {\n  new Store().save(formatItem("x"));\n}\n',
    );
    await writeFile(path.join(repo, "src/cli.py"), "def run_cli():\n    return main()\n");
    await writeFile(path.join(repo, ".gitignore"), "build/\n");
    await mkdir(path.join(repo, "build"));
    await writeFile(path.join(repo, "build/out.ts"), "export function generatedThing(): void {}\n");
    await git.run(repo, ["add", "-A"]);
    await git.run(repo, ["commit", "-q", "-m", "init"]);
  });
  afterAll(async () => {
    await rm(repo, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  });
  const map = (...args: string[]) => runCli(["map", "--repo", repo, ...args], { env: { AIDER_BOT_CACHE_DIR: cache } });

  test("prints the map, caches tags per checkout under AIDER_BOT_CACHE_DIR, and a second run parses nothing", async () => {
    const first = await map();
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("src/store.ts:\n│export class Store {\n");
    expect(first.stdout).not.toContain("build/out.ts");
    expect(first.stderr).toMatch(/repo map: 5 files, 4 parsed, 0 from cache, \d+ tokens/);
    expect(await readdir(path.join(cache, "repomap"))).toEqual([expect.stringMatching(/^[0-9a-f]{16}$/)]);
    const second = await map();
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toMatch(/5 files, 0 parsed, 4 from cache/);
  });

  test("--mention moves a file up; --file puts it in the chat, out of the map; a bad budget is a usage error", async () => {
    const order = (text: string) => Math.sign(text.indexOf("src/format.ts:") - text.indexOf("src/store.ts:"));
    const towardsStore = await map("--mention", "Store");
    const towardsFormat = await map("--mention", "formatItem");
    expect(order(towardsStore.stdout)).toBe(1);
    expect(order(towardsFormat.stdout)).toBe(-1);
    const chat = await map("--file", "src/store.ts");
    expect(chat.stdout).not.toContain("src/store.ts:");
    const bad = await map("--map-tokens", "lots");
    expect(bad.code).toBe(2);
  });

  test("with worker threads the map is the same, and the process ends as soon as it is printed (idle workers hold nothing)", async () => {
    const big = await mkdtemp(path.join(os.tmpdir(), "map-cli-big-"));
    try {
      await git.run(big, ["init", "-q", "-b", "main"]);
      for (let i = 0; i < 80; i++) {
        await writeFile(
          path.join(big, `m${i}.ts`),
          `export function helper${i}(): number {\n  return helper${(i + 1) % 80}() + 1;\n}\n`,
        );
      }
      // The shared workers are kept IDLE_MS for the next build; a CLI run that waited for them would outlive this
      // deadline (its build plus IDLE_MS), and runCli would reject with what it printed.
      const run = (threads: string) =>
        runCli(["map", "--repo", big, "--threads", threads], {
          env: { AIDER_BOT_CACHE_DIR: path.join(cache, threads) },
          timeoutMs: IDLE_MS,
        });
      const withWorkers = await run("1");
      expect(withWorkers.code).toBe(0);
      expect(withWorkers.stderr).toMatch(/80 files, 80 parsed/);
      const alone = await run("0");
      expect(withWorkers.stdout).toBe(alone.stdout);
      expect(withWorkers.stdout).toContain("│export function helper");
    } finally {
      await rm(big, { recursive: true, force: true });
    }
  });
});

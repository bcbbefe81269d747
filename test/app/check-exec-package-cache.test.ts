import { bubblewrapJobExec } from "../helpers/bubblewrap-job-exec.js";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Exec } from "../../src/exec/types.js";
import { describeWith } from "../helpers/needs.js";

/**
 * Package managers' caches in bubblewrap last from one job of a repository to the next (as container mode's volume
 * does), while each job keeps its own home and temp folder: one cache folder per repository under the cache dir,
 * never another repository's, and the App key's folder stays hidden.
 */
describeWith("bubblewrap", "the package cache of a repository's jobs in bubblewrap (real bubblewrap)", () => {
  let root: string;
  const made: Exec[] = [];
  beforeAll(async () => {
    // Under the project folder, not /tmp, which the sandbox replaces with a private one.
    root = await mkdtemp(path.join(process.cwd(), ".pkg-cache-"));
    await mkdir(path.join(root, "keys"), { recursive: true });
    await writeFile(path.join(root, "keys", "app.pem"), "SECRET KEY\n");
  });
  afterAll(async () => {
    for (const e of made) await e.close?.();
    await rm(root, { recursive: true, force: true });
  });

  /** One job of `repo`: its own check exec (as each job process makes), its checkout, its image choice. */
  async function job(name: string, cacheKey: string): Promise<(command: string) => Promise<string>> {
    const checkout = path.join(root, "work", name, "repo");
    await mkdir(checkout, { recursive: true });
    const exec = bubblewrapJobExec(root, process.env, { PRIVATE_KEY_PATH: path.join(root, "keys", "app.pem") });
    made.push(exec);
    exec.useContainer?.({ image: "unused:1", imageSource: "test", checkout, cacheKey });
    return async (command) => {
      const r = await exec.run({ command, shell: true, cwd: checkout, timeoutMs: 60_000 });
      return `${r.exitCode} ${r.output.trim()}`;
    };
  }

  it("job B of a repository sees what job A put in the cache; another repository's job does not; $HOME stays the job's", async () => {
    const a = await job("job-a", "octo/one");
    expect(
      await a('mkdir -p "$npm_config_cache" && echo cached > "$npm_config_cache/pkg" && echo mine > "$HOME/note"'),
    ).toBe("0 ");
    // Every package manager's setting points into the same folder (the container's list).
    expect(await a('test "${GOMODCACHE%/go/mod}" = "${npm_config_cache%/npm}" && echo same')).toBe("0 same");

    const b = await job("job-b", "octo/one");
    expect(await b('cat "$npm_config_cache/pkg"')).toBe("0 cached");
    // The home is still the job's own: what job A left there is gone.
    expect(await b('test -e "$HOME/note" && echo seen || echo none')).toBe("0 none");

    const other = await job("job-c", "octo/two");
    expect(await other('test -e "$npm_config_cache/pkg" && echo seen || echo none')).toBe("0 none");
    // Nor can it reach the first repository's folder by its path: the cache dir around its own is empty.
    expect(await other(`ls -A "${path.join(root, "cache", "packages")}" | wc -l`)).toBe("0 1");
    expect(await other(`cat "${path.join(root, "keys", "app.pem")}" 2>&1 || true`)).not.toContain("SECRET");
    expect(await other(`ls -A "${path.join(root, "keys")}" | wc -l`)).toBe("0 0");
  });

  it("a fork's pull request gets a cache of its own, not the repository's", async () => {
    const base = await job("job-d", "octo/three");
    expect(await base('mkdir -p "$npm_config_cache" && echo base > "$npm_config_cache/pkg"')).toBe("0 ");
    const fork = await job("job-e", "octo/three#fork-pr-7");
    expect(await fork('test -e "$npm_config_cache/pkg" && echo seen || echo none')).toBe("0 none");
  });
});

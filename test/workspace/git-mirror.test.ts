import { readdir, readFile, stat, truncate, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createGit } from "../../src/workspace/create-git.js";
import { checkoutConfig, cloneFromMirror, fetchIntoMirror, type MirrorPlace } from "../../src/workspace/git-mirror.js";
import { takeLock } from "../../src/workspace/mirror-lock.js";
import { createGitRunner } from "../../src/workspace/git-runner.js";
import { listGitFiles } from "../../src/workspace/git-listing.js";
import { listTree } from "../../src/workspace/git-tree-listing.js";
import { readBlobs } from "../../src/workspace/read-blobs.js";
import type { GitHttpServer } from "../../testkit/git-http-server.js";
import { exec, serveRemote, sh, writeFiles, type ServedRemote } from "./git-fixtures.js";

const TOKEN = "ghs_mirrortoken1234567890";
const run = createGitRunner(exec);
const git = createGit(exec, { name: "aider-bot[bot]", email: "bot@example.com" });
/** What a git process that failed returns through the exec. */
const failed = { exitCode: 128, stdout: "", stderr: "", output: "", timedOut: false, durationMs: 1 };

describe("checkouts made from a repository's mirror (git over smart HTTP)", () => {
  let remote: ServedRemote;
  let server: GitHttpServer;
  let tmp: string;
  let bare: string;
  let url: string;
  let place: MirrorPlace;
  let n = 0;

  beforeEach(async () => {
    remote = await serveRemote("git-mirror-", TOKEN, { "a.txt": "a\n", "src/b.txt": "b\n" });
    ({ tmp, bare, server, url } = remote);
    place = { root: path.join(tmp, "cache", "git-mirrors"), scope: "42" };
  });
  afterEach(() => remote.close());

  const dirFor = () => path.join(tmp, `job-${++n}`, "checkout");
  const mirrorDir = async () => {
    const names = (await readdir(place.root)).filter((d) => d.endsWith(".git"));
    expect(names).toHaveLength(1);
    return path.join(place.root, names[0]!);
  };
  const packsOf = async (dir: string) =>
    (await readdir(path.join(dir, "objects", "pack"))).filter((f) => f.endsWith(".pack"));
  /** Push a commit changing `files` to `branch` of the remote, as someone else would. */
  const pushRemote = async (branch: string, files: Record<string, string>) => {
    const seed = path.join(tmp, `seed-${++n}`);
    await sh(tmp, ["clone", "-q", bare, seed]);
    if (branch !== "main") await sh(seed, ["checkout", "-q", "-B", branch]);
    await writeFiles(seed, files);
    await sh(seed, ["add", "-A"]);
    await sh(seed, ["commit", "-q", "-m", `change on ${branch}`]);
    await sh(seed, ["push", "-q", "origin", `HEAD:refs/heads/${branch}`]);
    return (await sh(seed, ["rev-parse", "HEAD"])).trim();
  };

  it("makes the same checkout a depth-1 clone makes, and a warm mirror fetches only what changed", async () => {
    const first = dirFor();
    expect(await cloneFromMirror(run, { url, branch: "main", dir: first, token: TOKEN }, place)).toEqual({
      ok: true,
      cold: true,
    });
    const tip = await pushRemote("main", { "a.txt": "A\n", "new/c.txt": "c\n" });

    const second = dirFor();
    expect(await cloneFromMirror(run, { url, branch: "main", dir: second, token: TOKEN }, place)).toEqual({
      ok: true,
      cold: false,
    });
    const plain = dirFor();
    await git.clone({ url, branch: "main", dir: plain, token: TOKEN, depth: 1 });

    for (const args of [
      ["rev-parse", "HEAD"],
      ["rev-parse", "--is-shallow-repository"],
      ["symbolic-ref", "HEAD"],
      ["rev-parse", "--abbrev-ref", "@{upstream}"],
      ["ls-files", "-s"],
      ["status", "--porcelain"],
      ["config", "--local", "--list"],
      ["log", "--format=%H %s"],
    ]) {
      expect(`${args.join(" ")}: ${await sh(second, args)}`).toBe(`${args.join(" ")}: ${await sh(plain, args)}`);
    }
    expect((await sh(second, ["rev-parse", "HEAD"])).trim()).toBe(tip);
    expect(await readFile(path.join(second, "new", "c.txt"), "utf8")).toBe("c\n");
    // The second fetch brought one small pack: the commit, the trees on the changed paths and the two new blobs.
    const mirror = await mirrorDir();
    const packs = await packsOf(mirror);
    expect(packs).toHaveLength(2);
    const counts = await Promise.all(
      packs.map(
        async (p) =>
          (await sh(mirror, ["verify-pack", "-v", path.join(mirror, "objects", "pack", p.replace(/\.pack$/, ".idx"))]))
            .split("\n")
            .filter((l) => /^[0-9a-f]{40} (commit|tree|blob)/.test(l)).length,
      ),
    );
    expect(Math.min(...counts)).toBe(5); // commit, root tree, new/ tree, a.txt, new/c.txt (src/ unchanged, not sent)
    // The token went as a header only: in no file of the mirror or the checkout.
    for (const dir of [mirror, path.join(second, ".git")]) {
      for (const f of ["config", "FETCH_HEAD", "HEAD"])
        expect(await readFile(path.join(dir, f), "utf8").catch(() => "")).not.toContain(TOKEN);
    }
    expect(server.seenUrls.every((u) => !u.includes(TOKEN))).toBe(true);
  });

  it("commits and pushes from a checkout made from the mirror", async () => {
    await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place);
    await pushRemote("main", { "a.txt": "moved\n" });
    const dir = dirFor();
    await git.clone({ url, branch: "main", dir, token: TOKEN, depth: 1, mirror: place });
    await writeFiles(dir, { "src/b.txt": "B\n" });
    const c = await git.commit(dir, { paths: ["src/b.txt"], subject: "feat: b" });
    await git.push({ dir, branch: "main", token: TOKEN });
    expect((await sh(bare, ["rev-parse", "main"])).trim()).toBe(c.sha);
    expect(await sh(bare, ["show", "main:src/b.txt"])).toBe("B\n");
    expect(await sh(bare, ["show", "main:a.txt"])).toBe("moved\n");
  });

  it("keeps one branch's checkout free of another's files, and writes odd branch names into config correctly", async () => {
    const branch = 'feature/odd"name#x;y';
    await pushRemote(branch, { "only-on-branch.txt": "x\n" });
    await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place);
    const dir = dirFor();
    expect(await cloneFromMirror(run, { url, branch, dir, token: TOKEN }, place)).toEqual({ ok: true, cold: false });
    expect((await sh(dir, ["symbolic-ref", "--short", "HEAD"])).trim()).toBe(branch);
    expect((await sh(dir, ["config", `branch.${branch}.merge`])).trim()).toBe(`refs/heads/${branch}`);
    expect((await sh(dir, ["rev-parse", "--abbrev-ref", "@{upstream}"])).trim()).toBe(`origin/${branch}`);
    expect(await readFile(path.join(dir, "only-on-branch.txt"), "utf8")).toBe("x\n");
    const main = dirFor();
    await cloneFromMirror(run, { url, branch: "main", dir: main, token: TOKEN }, place);
    await expect(stat(path.join(main, "only-on-branch.txt"))).rejects.toThrow();
    expect(await sh(main, ["status", "--porcelain"])).toBe("");
  });

  it("falls back, leaving no checkout, while another job holds the mirror; takes over a dead holder's lock", async () => {
    await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place);
    const mirror = await mirrorDir();
    const held = takeLock(`${mirror}.lock`);
    expect(held).not.toBeNull();
    const dir = dirFor();
    expect(await cloneFromMirror(run, { url, branch: "main", dir, token: TOKEN }, place)).toEqual({
      ok: false,
      reason: "another job of this repository is using its mirror",
    });
    await expect(stat(dir)).rejects.toThrow();
    // createGit then clones plainly, and says why.
    const reasons: string[] = [];
    await git.clone({
      url,
      branch: "main",
      dir,
      token: TOKEN,
      depth: 1,
      mirror: { ...place, onFallback: (r) => reasons.push(r) },
    });
    expect(reasons).toEqual(["another job of this repository is using its mirror"]);
    expect((await sh(dir, ["status", "--porcelain"])).trim()).toBe("");
    await held!.release();

    // A lock left by a process that is gone (a crash) is taken over.
    await writeFile(`${mirror}.lock`, `${os.hostname()} 2147483646 ${Date.now()}\n`);
    expect(await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place)).toEqual({
      ok: true,
      cold: false,
    });
    await expect(stat(`${mirror}.lock`)).rejects.toThrow();
  });

  it("throws a damaged mirror away and builds it again; a missing branch leaves nothing behind", async () => {
    await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place);
    const mirror = await mirrorDir();
    const [pack] = await packsOf(mirror);
    await truncate(path.join(mirror, "objects", "pack", pack!), 40);
    const dir = dirFor();
    const damaged = await cloneFromMirror(run, { url, branch: "main", dir, token: TOKEN }, place);
    expect(damaged.ok).toBe(false);
    await expect(stat(dir)).rejects.toThrow();
    expect(await readdir(place.root)).toEqual([]);
    expect(await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place)).toEqual({
      ok: true,
      cold: true,
    });

    const none = dirFor();
    const missing = await cloneFromMirror(run, { url, branch: "no-such-branch", dir: none, token: TOKEN }, place);
    expect(missing).toMatchObject({ ok: false, reason: expect.stringContaining("no-such-branch") });
    expect(missing.ok ? "" : missing.reason).not.toContain(TOKEN);
    await expect(stat(none)).rejects.toThrow();
  });

  it("rebuilds a mirror past its pack limit, and keeps installations apart", async () => {
    const small = { ...place, maxPacks: 2 };
    const results: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      await pushRemote("main", { "a.txt": `v${i}\n` });
      const made = await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, small);
      results.push(made.ok && made.cold);
    }
    expect(results).toEqual([true, false, false, true]);
    await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, { ...place, scope: "43" });
    expect((await readdir(place.root)).filter((d) => d.endsWith(".git"))).toHaveLength(2);
  });

  it("leaves a folder that already has files in it alone", async () => {
    const dir = dirFor();
    await writeFiles(dir, { "keep.txt": "mine\n" });
    expect(await cloneFromMirror(run, { url, branch: "main", dir, token: TOKEN }, place)).toEqual({
      ok: false,
      reason: "the checkout folder is not empty",
    });
    expect(await readFile(path.join(dir, "keep.txt"), "utf8")).toBe("mine\n");
  });

  /** What a test of telling needs: the branch's tip, a new folder, what was seen, and a gate for read-tree to wait at. */
  const telling = async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tip = (await sh(bare, ["rev-parse", "main"])).trim();
    return { tip, dir: dirFor(), seen: [] as string[], held, release: () => release() };
  };

  it("tells the commit once the checkout's git has it, before read-tree writes its files; git's side is readable then", async () => {
    const { tip, dir, seen, held, release } = await telling();
    // read-tree waits until the told commit has been looked at: a clone that never tells would hang here.
    const holding: typeof run = async (cwd, args, options) => {
      if (args.includes("read-tree")) await held;
      return run(cwd, args, options);
    };
    const made = await cloneFromMirror(
      holding,
      {
        url,
        branch: "main",
        dir,
        token: TOKEN,
        onTree: (commit) => {
          seen.push(commit);
          void (async () => {
            seen.push(`files: ${(await readdir(dir)).filter((f) => f !== ".git").join(",") || "none"}`);
            const listing = await listTree(exec, dir, commit);
            seen.push(`listed: ${listing?.files.join(",")}`);
            const blobs = await readBlobs(exec, dir, [...(listing?.indexIds.values() ?? [])]);
            seen.push(
              `blobs: ${[...blobs.values()]
                .map((b) => b.toString("utf8").trim())
                .sort()
                .join(",")}`,
            );
            release();
          })();
        },
      },
      place,
    );
    expect(made.ok).toBe(true);
    expect(seen).toEqual([tip, "files: none", "listed: a.txt,src/b.txt", "blobs: a,b"]);
    // The listing of git's side is the one the written checkout gives.
    expect(await listTree(exec, dir, tip)).toEqual(await listGitFiles(exec, dir));
  });

  it("a plain clone asked to tell does too: the commit before read-tree writes the files, then the checkout `git clone` makes", async () => {
    const { tip, dir, seen, held, release } = await telling();
    const ran: string[] = [];
    const holding = createGit(
      {
        ...exec,
        run: async (req) => {
          ran.push(req.args?.find((a) => ["clone", "read-tree", "ls-files", "fetch"].includes(a)) ?? "other");
          if (req.args?.includes("read-tree")) await held;
          return exec.run(req);
        },
      } as typeof exec,
      { name: "aider-bot[bot]", email: "bot@example.com" },
    );
    const made = await holding.clone({
      url,
      branch: "main",
      dir,
      token: TOKEN,
      depth: 1,
      onTree: (commit) => {
        seen.push(commit);
        // Known as a depth-1 clone when told: the map's history read, asked at once, starts no `git log`.
        const history = holding.changeHistory(dir);
        void (async () => {
          seen.push(`files: ${(await readdir(dir)).filter((f) => f !== ".git").join(",") || "none"}`);
          const listing = await listTree(exec, dir, commit);
          seen.push(`listed: ${listing?.files.join(",")}`);
          seen.push(`history: ${JSON.stringify(await history)}`);
          release();
        })();
      },
    });
    expect(made).toEqual({ tree: tip });
    expect(seen).toEqual([tip, "files: none", "listed: a.txt,src/b.txt", "history: []"]);
    expect(ran).toEqual(["clone", "read-tree"]);
    // The same checkout as a plain `git clone` of the branch: files, index, HEAD, nothing to commit.
    const plain = dirFor();
    // `git clone` itself: the clone not asked to tell is one `git clone` process (the next test).
    await git.clone({ url, branch: "main", dir: plain, token: TOKEN, depth: 1 });
    for (const args of [
      ["ls-files", "-s"],
      ["rev-parse", "HEAD", "@{upstream}"],
      ["status", "--porcelain"],
    ])
      expect(await sh(dir, args)).toBe(await sh(plain, args));
    expect(await readFile(path.join(dir, "src", "b.txt"), "utf8")).toBe("b\n");
  });

  it("a plain clone not asked to tell is one process, as before", async () => {
    const ran: string[] = [];
    const counting = createGit(
      {
        ...exec,
        run: (req) => (ran.push(req.args?.includes("clone") ? "clone" : "other"), exec.run(req)),
      } as typeof exec,
      { name: "aider-bot[bot]", email: "bot@example.com" },
    );
    expect(await counting.clone({ url, branch: "main", dir: dirFor(), token: TOKEN, depth: 1 })).toEqual({
      tree: null,
    });
    expect(ran).toEqual(["clone"]);
  });

  it("writes the checkout's git folder and links the mirror's earlier packs while the fetch runs", async () => {
    await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place);
    const before = await packsOf(await mirrorDir());
    await pushRemote("main", { "c.txt": "c\n" });
    const dir = dirFor();
    const gitDir = path.join(dir, ".git");
    const atFetchEnd: string[] = [];
    // What the checkout's .git holds the moment the fetch has ended, before anything after it has run.
    const watching: typeof run = async (cwd, args, options) => {
      const r = await run(cwd, args, options);
      if (args.includes("fetch")) {
        atFetchEnd.push(
          `config: ${await stat(path.join(gitDir, "config")).then(
            () => "yes",
            () => "no",
          )}`,
        );
        atFetchEnd.push(
          `packs: ${(await readdir(path.join(gitDir, "objects", "pack")).catch(() => []))
            .filter((f) => f.endsWith(".pack"))
            .sort()
            .join(",")}`,
        );
      }
      return r;
    };
    expect(await cloneFromMirror(watching, { url, branch: "main", dir, token: TOKEN }, place)).toEqual({
      ok: true,
      cold: false,
    });
    expect(atFetchEnd).toEqual(["config: yes", `packs: ${[...before].sort().join(",")}`]);
    // The fetch's new pack is linked after it: the checkout has the new commit's files.
    expect(await readFile(path.join(dir, "c.txt"), "utf8")).toBe("c\n");
    expect((await packsOf(gitDir)).length).toBe(before.length + 1);
  });

  it("names the told commit once written, and the plain clone's when one had to replace the mirror's checkout", async () => {
    const tip = (await sh(bare, ["rev-parse", "main"])).trim();
    const told: string[] = [];
    const kept = await git.clone({
      url,
      branch: "main",
      dir: dirFor(),
      token: TOKEN,
      depth: 1,
      mirror: place,
      onTree: (c) => void told.push(c),
    });
    expect(kept).toEqual({ tree: tip });
    // The mirror's read-tree fails after the commit was told (a damaged mirror); the plain clone's own works.
    let damaged = 1;
    const failing = createGit(
      {
        ...exec,
        run: (req) =>
          req.args?.includes("read-tree") && damaged-- > 0
            ? Promise.resolve({ ...failed, output: "fatal: bad object" })
            : exec.run(req),
      } as typeof exec,
      { name: "aider-bot[bot]", email: "bot@example.com" },
    );
    const fallbacks: string[] = [];
    const dir = dirFor();
    const replaced = await failing.clone({
      url,
      branch: "main",
      dir,
      token: TOKEN,
      depth: 1,
      mirror: { ...place, onFallback: (reason) => void fallbacks.push(reason) },
      onTree: (c) => void told.push(c),
    });
    // Told once by the mirror's checkout, not again by the plain clone: its result says which commit it wrote.
    expect(told).toEqual([tip, tip]);
    expect(replaced).toEqual({ tree: tip });
    expect(fallbacks).toHaveLength(1);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("a\n");
  });

  /** A runner that records each git subcommand it runs (the word after the `-c` options). */
  const recording = () => {
    const ran: string[] = [];
    const rec: typeof run = (cwd, args, options) => {
      ran.push(args.filter((a, i) => a !== "-c" && args[i - 1] !== "-c")[0] ?? "");
      return run(cwd, args, options);
    };
    return { ran, rec };
  };

  it("a fetch made ahead for the run: its checkout is made from it with no fetch of its own, and is the branch's tip", async () => {
    await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place);
    const tip = await pushRemote("main", { "a.txt": "ahead\n" });
    const ahead = recording();
    const fetched = fetchIntoMirror(ahead.rec, { url, branch: "main", token: TOKEN }, place);
    const job = recording();
    const dir = dirFor();
    // Asked for while the fetch ahead still holds the mirror: the checkout waits for it, not a plain clone.
    const made = cloneFromMirror(job.rec, { url, branch: "main", dir, token: TOKEN, fetched }, place);
    expect(await fetched).toBe(tip);
    expect(await made).toEqual({ ok: true, cold: false });
    expect(ahead.ran).toEqual(["fetch"]);
    expect(job.ran).toEqual(["read-tree"]);
    expect((await sh(dir, ["rev-parse", "HEAD"])).trim()).toBe(tip);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("ahead\n");
    expect(await sh(dir, ["status", "--porcelain"])).toBe("");
    // The lock is released: the next job takes the mirror.
    expect(await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place)).toEqual({
      ok: true,
      cold: false,
    });
  });

  it("writes the checkout's git folder while the fetch ahead still runs; leaves no folder when the mirror is then busy", async () => {
    await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place);
    const before = await packsOf(await mirrorDir());
    const tip = await pushRemote("main", { "c.txt": "c\n" });
    let release: (tip: string | null) => void = () => undefined;
    const dir = dirFor();
    const made = cloneFromMirror(
      run,
      { url, branch: "main", dir, token: TOKEN, fetched: new Promise((r) => (release = r)) },
      place,
    );
    // The fetch ahead has not ended: the checkout's .git is there already, with the mirror's packs so far.
    const gitDir = path.join(dir, ".git");
    expect(await readFile(path.join(gitDir, "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
    expect((await packsOf(gitDir)).sort()).toEqual([...before].sort());
    release(await fetchIntoMirror(run, { url, branch: "main", token: TOKEN }, place));
    expect(await made).toEqual({ ok: true, cold: false });
    expect((await sh(dir, ["rev-parse", "HEAD"])).trim()).toBe(tip);
    expect(await readFile(path.join(dir, "c.txt"), "utf8")).toBe("c\n");
    expect(await sh(dir, ["status", "--porcelain"])).toBe("");
    // Another job took the mirror first: the early folder goes, for the plain clone that follows.
    const held = takeLock(`${await mirrorDir()}.lock`)!;
    const other = dirFor();
    expect(
      await cloneFromMirror(run, { url, branch: "main", dir: other, fetched: Promise.resolve(tip) }, place),
    ).toEqual({
      ok: false,
      reason: "another job of this repository is using its mirror",
    });
    await expect(stat(other)).rejects.toThrow();
    await held.release();
  });

  it("fetches itself when the mirror's branch moved since the fetch ahead, when that fetch failed, or found the mirror busy", async () => {
    await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place);
    const old = await pushRemote("main", { "a.txt": "one\n" });
    expect(await fetchIntoMirror(run, { url, branch: "main", token: TOKEN }, place)).toBe(old);
    // Another job fetched the branch again meanwhile (someone pushed): the ref no longer names the tip fetched ahead.
    await pushRemote("main", { "a.txt": "two\n" });
    await cloneFromMirror(run, { url, branch: "main", dir: dirFor(), token: TOKEN }, place);
    await pushRemote("main", { "a.txt": "three\n" });
    const moved = recording();
    const dir = dirFor();
    expect(
      await cloneFromMirror(
        moved.rec,
        { url, branch: "main", dir, token: TOKEN, fetched: Promise.resolve(old) },
        place,
      ),
    ).toEqual({ ok: true, cold: false });
    expect(moved.ran).toEqual(["fetch", "read-tree"]);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("three\n");
    // A fetch ahead that failed (null) or was refused: the run fetches as it always did.
    const failedAhead = recording();
    const other = dirFor();
    expect(
      await cloneFromMirror(
        failedAhead.rec,
        { url, branch: "main", dir: other, token: TOKEN, fetched: Promise.resolve(null) },
        place,
      ),
    ).toEqual({ ok: true, cold: false });
    expect(failedAhead.ran).toEqual(["fetch", "read-tree"]);
    // While another job holds the mirror, the fetch ahead does nothing and leaves the lock as it found it.
    const mirror = await mirrorDir();
    const held = takeLock(`${mirror}.lock`)!;
    const busy = recording();
    expect(await fetchIntoMirror(busy.rec, { url, branch: "main", token: TOKEN }, place)).toBeNull();
    expect(busy.ran).toEqual([]);
    await expect(stat(`${mirror}.lock`)).resolves.toBeTruthy();
    await held.release();
  });

  it("a fetch ahead of a branch that does not exist returns null and leaves no lock behind; the token is never written", async () => {
    expect(await fetchIntoMirror(run, { url, branch: "no-such-branch", token: TOKEN }, place)).toBeNull();
    expect((await readdir(place.root)).filter((f) => f.endsWith(".lock"))).toEqual([]);
    expect(await fetchIntoMirror(run, { url, branch: "main", token: TOKEN }, place)).toBe(
      (await sh(bare, ["rev-parse", "main"])).trim(),
    );
    const mirror = await mirrorDir();
    for (const f of ["config", "FETCH_HEAD", "HEAD"])
      expect(await readFile(path.join(mirror, f), "utf8").catch(() => "")).not.toContain(TOKEN);
    expect(server.seenUrls.every((u) => !u.includes(TOKEN))).toBe(true);
  });

  it("is used only for depth-1 clones", async () => {
    const dir = dirFor();
    await git.clone({ url, branch: "main", dir, token: TOKEN, depth: 50, mirror: place });
    await expect(readdir(place.root)).rejects.toThrow();
    expect((await sh(dir, ["rev-parse", "--abbrev-ref", "HEAD"])).trim()).toBe("main");
  });
});

describe("checkoutConfig", () => {
  it("quotes what git's config syntax would otherwise read differently", () => {
    const text = checkoutConfig("https://example.com/a;b#c.git", 'x"y\\z');
    expect(text).toContain('\turl = "https://example.com/a;b#c.git"');
    expect(text).toContain('[branch "x\\"y\\\\z"]');
    expect(text).toContain('\tmerge = "refs/heads/x\\"y\\\\z"');
  });
});

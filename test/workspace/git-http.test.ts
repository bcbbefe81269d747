import { chmod, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createGit } from "../../src/workspace/create-git.js";
import { GitError, PushRejectedError } from "../../src/workspace/git-errors.js";
import type { GitHttpServer } from "../../testkit/git-http-server.js";
import { exec, serveRemote, sh, writeFiles, type ServedRemote } from "./git-fixtures.js";

const TOKEN = "ghs_testtoken1234567890";
const B64 = Buffer.from(`x-access-token:${TOKEN}`).toString("base64");
const git = createGit(exec, { name: "aider-bot[bot]", email: "bot@example.com" });

describe("git over smart HTTP with a token header", () => {
  let remote: ServedRemote;
  let server: GitHttpServer;
  let tmp: string;
  let bare: string;
  let url: string;

  beforeEach(async () => {
    remote = await serveRemote("git-http-", TOKEN, { "a.txt": "a\n", "b.txt": "b\n" });
    ({ tmp, bare, server, url } = remote);
  });
  afterEach(() => remote.close());

  const clone = async (name: string) => {
    const dir = path.join(tmp, name);
    await git.clone({ url, branch: "main", dir, token: TOKEN });
    return dir;
  };

  it("clones shallow, commits and pushes; the token is in no URL, config or remote, and was sent as a header", async () => {
    const seed = path.join(tmp, "seed");
    await sh(tmp, ["clone", "-q", bare, seed]);
    await writeFiles(seed, { "c.txt": "c\n" });
    await sh(seed, ["add", "c.txt"]);
    await sh(seed, ["commit", "-q", "-m", "second"]);
    await sh(seed, ["push", "-q", "origin", "main"]);
    const dir = path.join(tmp, "mine");
    await git.clone({ url, branch: "main", dir, token: TOKEN, depth: 1 });
    expect((await sh(dir, ["rev-parse", "--is-shallow-repository"])).trim()).toBe("true");
    expect(await git.currentBranch(dir)).toBe("main");
    await writeFiles(dir, { "a.txt": "A\n" });
    const c = await git.commit(dir, { paths: ["a.txt"], subject: "feat: change a" });
    await git.push({ dir, branch: "main", token: TOKEN });

    expect((await sh(bare, ["rev-parse", "main"])).trim()).toBe(c.sha);
    const config = await readFile(path.join(dir, ".git", "config"), "utf8");
    expect(config).not.toContain(TOKEN);
    expect(config).not.toContain(B64);
    expect(config).not.toMatch(/extraheader/i);
    expect((await sh(dir, ["remote", "get-url", "origin"])).trim()).toBe(url);
    expect(server.seenUrls.some((u) => u.includes("git-receive-pack"))).toBe(true);
    expect(server.seenUrls.every((u) => !u.includes(TOKEN))).toBe(true);
    expect(server.seenAuthHeaders.length).toBeGreaterThan(0);
    expect(new Set(server.seenAuthHeaders)).toEqual(new Set([`Basic ${B64}`]));
    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    expect(server.requests.some((r) => r.gitProtocol === "version=2")).toBe(true);
  });

  it("pushes a new branch with upstream, fetches, and finds the default branch", async () => {
    const dir = await clone("mine");
    await git.checkoutNewBranch(dir, "aider/issue-1");
    await writeFiles(dir, { "new.txt": "n\n" });
    const c = await git.commit(dir, { paths: ["new.txt"], subject: "feat: new" });
    await git.push({ dir, branch: "aider/issue-1", token: TOKEN, setUpstream: true });
    expect((await sh(bare, ["rev-parse", "aider/issue-1"])).trim()).toBe(c.sha);
    expect((await sh(dir, ["rev-parse", "--abbrev-ref", "@{upstream}"])).trim()).toBe("origin/aider/issue-1");
    expect(await git.fetch({ dir, branch: "main", token: TOKEN })).toBe((await sh(bare, ["rev-parse", "main"])).trim());
    expect(await git.defaultRemoteBranch(dir, { token: TOKEN })).toBe("main");
  });

  it("fails without a token, or with a wrong one, and never shows the token", async () => {
    const noToken = await git.clone({ url, branch: "main", dir: path.join(tmp, "x") }).catch((e: unknown) => e);
    expect(noToken).toBeInstanceOf(GitError);
    const wrong = "ghs_wrongtoken99999999";
    const err = (await git
      .clone({ url, branch: "main", dir: path.join(tmp, "y"), token: wrong })
      .catch((e: unknown) => e)) as GitError;
    expect(err).toBeInstanceOf(GitError);
    const wrongB64 = Buffer.from(`x-access-token:${wrong}`).toString("base64");
    for (const text of [err.message, err.output]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(wrongB64);
    }
    expect(server.requests.some((r) => r.status === 401)).toBe(true);
  });

  it("rebases once when the branch moved with a non-conflicting change", async () => {
    const mine = await clone("mine");
    const theirs = await clone("theirs");
    await writeFiles(theirs, { "b.txt": "theirs\n" });
    await git.commit(theirs, { paths: ["b.txt"], subject: "chore: theirs" });
    await git.push({ dir: theirs, branch: "main", token: TOKEN });

    await writeFiles(mine, { "a.txt": "mine\n", "scratch.txt": "untracked, left alone\n" });
    await git.commit(mine, { paths: ["a.txt"], subject: "feat: mine" });
    await git.push({ dir: mine, branch: "main", token: TOKEN });
    expect((await git.log(bare, 3, "main")).map((c) => c.subject)).toEqual([
      "feat: mine",
      "chore: theirs",
      "Initial commit",
    ]);
    expect(await readFile(path.join(mine, "b.txt"), "utf8")).toBe("theirs\n");
    expect(await readFile(path.join(mine, "scratch.txt"), "utf8")).toBe("untracked, left alone\n");
  });

  it("gives PushRejectedError when the branch moved with a conflicting change, leaving our commit in place", async () => {
    const mine = await clone("mine");
    const theirs = await clone("theirs");
    await writeFiles(theirs, { "a.txt": "theirs\n" });
    await git.commit(theirs, { paths: ["a.txt"], subject: "chore: theirs" });
    await git.push({ dir: theirs, branch: "main", token: TOKEN });
    const remoteTip = (await sh(bare, ["rev-parse", "main"])).trim();

    await writeFiles(mine, { "a.txt": "mine\n" });
    const c = await git.commit(mine, { paths: ["a.txt"], subject: "feat: mine" });
    const err = await git.push({ dir: mine, branch: "main", token: TOKEN }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PushRejectedError);
    expect((err as Error).message).toMatch(/`main` moved/);
    expect((await sh(bare, ["rev-parse", "main"])).trim()).toBe(remoteTip);
    expect(await git.headSha(mine)).toBe(c.sha);
    expect(await git.statusPorcelain(mine)).toEqual([]);
  });

  it("reports a push refused for another reason as a plain GitError, not as a moved branch", async () => {
    const dir = await clone("mine");
    await writeFiles(dir, { "a.txt": "x\n" });
    await git.commit(dir, { paths: ["a.txt"], subject: "fix: x" });
    await writeFiles(bare, { "hooks/pre-receive": "#!/bin/sh\necho 'protected branch' >&2\nexit 1\n" });
    await chmod(path.join(bare, "hooks", "pre-receive"), 0o755);
    const err = await git.push({ dir, branch: "main", token: TOKEN }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitError);
    expect(err).not.toBeInstanceOf(PushRejectedError);
    expect((err as Error).message).toContain("protected branch");
  });

  describe("when the repository's scripts rewrote .git/config after cloning", () => {
    let capture: Server;
    let captured: string[];
    let captureUrl: string;
    beforeEach(async () => {
      captured = [];
      capture = createServer((req, res) => {
        captured.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
        res.writeHead(401, { "WWW-Authenticate": 'Basic realm="x"' }).end();
      });
      await new Promise<void>((resolve) => capture.listen(0, "127.0.0.1", resolve));
      captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;
    });
    afterEach(() => new Promise<void>((resolve) => capture.close(() => resolve())));

    const configs: [string, (dir: string) => string[][]][] = [
      [
        "an include.path pointing at a file that redirects the remote",
        (dir) => [["config", "include.path", path.join(dir, "..", "evil.cfg")]],
      ],
      [
        "the remote URL",
        () => [
          ["remote", "set-url", "origin", `${captureUrl}/evil.git`],
          ["remote", "set-url", "--push", "origin", `${captureUrl}/evil.git`],
        ],
      ],
      ["a url.insteadOf rewrite", () => [["config", `url.${captureUrl}/.insteadOf`, url.replace(/\/acme.*/, "/")]]],
      ["an http.proxy", () => [["config", "http.proxy", captureUrl]]],
      [
        "a credential helper",
        () => [
          [
            "config",
            "credential.helper",
            `!f() { cat >/dev/null; echo "$GIT_CONFIG_VALUE_1" > ${path.join(tmp, "helper.txt")}; }; f`,
          ],
        ],
      ],
    ];
    it.each(configs)(
      "push and fetch ignore %s: they still reach our URL, and the capture server gets nothing",
      async (_why, commands) => {
        const dir = await clone("mine");
        await writeFiles(dir, {
          "a.txt": "x\n",
          // What the include would pull in: every kind of redirect at once.
          "../evil.cfg": `[url "${captureUrl}/"]\n\tinsteadOf = ${url.replace(/\/acme.*/, "/")}\n[http]\n\tproxy = ${captureUrl}\n[remote "origin"]\n\tpushurl = ${captureUrl}/evil.git\n`,
        });
        const c = await git.commit(dir, { paths: ["a.txt"], subject: "fix: x" });
        for (const args of commands(dir)) await sh(dir, args);
        await git.push({ dir, branch: "main", token: TOKEN });
        expect(await git.fetch({ dir, branch: "main", token: TOKEN })).toBe(c.sha);
        expect((await sh(bare, ["rev-parse", "main"])).trim()).toBe(c.sha);
        expect(captured).toEqual([]);
        await expect(readFile(path.join(tmp, "helper.txt"))).rejects.toThrow();
      },
    );
  });

  it("runs no hook while the token is in git's environment (a planted pre-push hook cannot read it)", async () => {
    const dir = await clone("mine");
    const leak = path.join(tmp, "leaked.txt");
    await writeFiles(dir, { ".git/hooks/pre-push": `#!/bin/sh\nenv > '${leak}'\n`, "a.txt": "x\n" });
    await chmod(path.join(dir, ".git/hooks/pre-push"), 0o755);
    await git.commit(dir, { paths: ["a.txt"], subject: "fix: x" });
    await git.push({ dir, branch: "main", token: TOKEN });
    await expect(readFile(leak)).rejects.toThrow();
    // The same hook does run for a push without a token, so the check above is meaningful.
    await writeFiles(dir, { "a.txt": "y\n" });
    await git.commit(dir, { paths: ["a.txt"], subject: "fix: y" });
    await sh(dir, ["push", "-q", bare, "HEAD:refs/heads/other"]);
    expect(await readFile(leak, "utf8")).toContain("PATH=");
  });
});

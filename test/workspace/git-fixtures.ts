import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startGitHttpServer, type GitHttpServer } from "../../testkit/git-http-server.js";
import { testExec } from "../helpers/test-exec.js";

export const exec = testExec({ sourceEnv: process.env });

const IDENT = {
  GIT_AUTHOR_NAME: "Seed",
  GIT_AUTHOR_EMAIL: "seed@example.com",
  GIT_COMMITTER_NAME: "Seed",
  GIT_COMMITTER_EMAIL: "seed@example.com",
};
/** No automatic `git maintenance` after a fixture's commit or fetch, nor `gc` after its push: processes no test needs. */
const QUIET_GIT = {
  GIT_CONFIG_COUNT: "2",
  GIT_CONFIG_KEY_0: "maintenance.auto",
  GIT_CONFIG_VALUE_0: "false",
  GIT_CONFIG_KEY_1: "receive.autogc",
  GIT_CONFIG_VALUE_1: "false",
};

/** Run git in `cwd` as a test user (fixture plumbing, independent of the code under test); throws on failure. */
export async function sh(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await exec.run({ command: "git", args, cwd, env: { ...IDENT, ...QUIET_GIT, ...env } });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.output}`);
  return r.stdout;
}

/** Write files (path → content) under `dir`, creating folders. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
}

/** A fresh non-bare repository on `main` with one commit of `files`. */
export async function makeRepo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ws-repo-"));
  await sh(dir, ["init", "-q", "-b", "main"]);
  await writeFiles(dir, files);
  await sh(dir, ["add", "-A"]);
  await sh(dir, ["commit", "-q", "-m", "Initial commit"]);
  return dir;
}

/** A bare repository `<projectRoot>/<name>` whose `main` holds one commit of `files`. */
export async function seedBareRepo(projectRoot: string, name: string, files: Record<string, string>): Promise<string> {
  const bare = path.join(projectRoot, name);
  await mkdir(bare, { recursive: true });
  await sh(bare, ["init", "-q", "--bare", "-b", "main"]);
  const work = await makeRepo(files);
  await sh(work, ["push", "-q", bare, "main"]);
  await rm(work, { recursive: true, force: true });
  return bare;
}

/** A temp folder holding `acme/app.git` (one commit of `files` on `main`), served over smart HTTP behind `token`. */
export interface ServedRemote {
  tmp: string;
  bare: string;
  server: GitHttpServer;
  url: string;
  close(): Promise<void>;
}

export async function serveRemote(prefix: string, token: string, files: Record<string, string>): Promise<ServedRemote> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), prefix));
  const bare = await seedBareRepo(path.join(tmp, "remote"), "acme/app.git", files);
  const server = await startGitHttpServer({
    projectRoot: path.join(tmp, "remote"),
    requireToken: token,
    sourceEnv: process.env,
  });
  return {
    tmp,
    bare,
    server,
    url: `${server.url}/acme/app.git`,
    close: async () => {
      await server.close();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

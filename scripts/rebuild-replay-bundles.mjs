#!/usr/bin/env node
/**
 * Rebuilds the replay benchmark's vendored git bundles (bench/replay/bundles/) and licences (bench/replay/licences/)
 * from full clones, as listed in bench/replay/manifest.json:
 *
 *   node scripts/rebuild-replay-bundles.mjs --clones DIR [--only ID,ID]
 *
 * DIR holds one clone (a work tree or a bare git dir) per repository, named `owner+name` (e.g. `tj+co`). Each case
 * becomes a two-commit history: a root commit whose tree is the commit's parent tree (with the parent's author, date
 * and message) and the commit itself on top (its own tree, author, date and message). A bundle of that history needs
 * no other objects, so it holds only the two trees, and rebuilding it from the same clone gives the same commit ids.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const benchDir = path.join(root, "bench", "replay");
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const clones = flag("--clones");
const only = flag("--only")?.split(",");
if (!clones) {
  process.stderr.write("usage: node scripts/rebuild-replay-bundles.mjs --clones DIR [--only ID,ID]\n");
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(path.join(benchDir, "manifest.json"), "utf8"));

/** The git dir of a clone: `DIR/owner+name/.git`, `DIR/owner+name/repo(.git)` or a bare `DIR/owner+name`. */
function gitDirOf(repo) {
  const base = path.join(clones, repo.replace("/", "+"));
  for (const c of [path.join(base, ".git"), path.join(base, "repo", ".git"), path.join(base, "repo"), base])
    if (existsSync(path.join(c, "objects"))) return c;
  throw new Error(`no clone of ${repo} under ${clones} (looked for ${base}/.git, ${base}/repo, ${base})`);
}

const git = (gitDir, argv, env = {}) =>
  execFileSync("git", ["--git-dir", gitDir, ...argv], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    maxBuffer: 64 << 20,
  }).trim();

/** Author, committer and message of a commit, for commit-tree. */
function meta(gitDir, sha) {
  const f = (fmt) => git(gitDir, ["show", "-s", `--format=${fmt}`, sha]);
  return {
    env: {
      GIT_AUTHOR_NAME: f("%an"),
      GIT_AUTHOR_EMAIL: f("%ae"),
      GIT_AUTHOR_DATE: f("%aD"),
      GIT_COMMITTER_NAME: f("%cn"),
      GIT_COMMITTER_EMAIL: f("%ce"),
      GIT_COMMITTER_DATE: f("%cD"),
    },
    message: git(gitDir, ["show", "-s", "--format=%B", sha]),
  };
}

mkdirSync(path.join(benchDir, "bundles"), { recursive: true });
mkdirSync(path.join(benchDir, "licences"), { recursive: true });
for (const c of manifest.cases) {
  if (only && !only.includes(c.id)) continue;
  const source = gitDirOf(c.repo);
  const parent = git(source, ["rev-parse", `${c.commit}^`]);
  const tmp = mkdtempSync(path.join(os.tmpdir(), "replay-bundle-"));
  try {
    const gd = path.join(tmp, "git");
    execFileSync("git", ["init", "-q", "--bare", gd]);
    // Borrow the clone's objects: commit-tree and bundle read them through the alternate, the bundle copies them.
    writeFileSync(path.join(gd, "objects", "info", "alternates"), `${path.resolve(source, "objects")}\n`);
    const treeOf = (sha) => git(source, ["rev-parse", `${sha}^{tree}`]);
    const p = meta(source, parent);
    const base = git(gd, ["commit-tree", treeOf(parent), "-m", p.message], p.env);
    const m = meta(source, c.commit);
    const head = git(gd, ["commit-tree", treeOf(c.commit), "-p", base, "-m", m.message], m.env);
    git(gd, ["update-ref", "refs/heads/replay", head]);
    const out = path.join(benchDir, "bundles", `${c.id}.bundle`);
    git(gd, ["bundle", "create", out, "refs/heads/replay"]);
    const licence = path.join(benchDir, "licences", `${c.repo.replace("/", "+")}.txt`);
    writeFileSync(licence, execFileSync("git", ["--git-dir", source, "show", `${c.commit}:${c.licence}`]));
    process.stdout.write(`${c.id}: ${head.slice(0, 12)} (${(statSync(out).size / 1024).toFixed(0)} KiB)\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

#!/usr/bin/env node
// Which test files run a tool that the fresh-machine check hides (bubblewrap, Redis, Podman, runc, crun)?
//
// CI's fresh-machine run (scripts/fresh-machine-check.sh) proves that the suite passes where those tools are not
// installed. A test file that never runs any of them behaves the same with or without them, so the fresh run needs
// only the files that do. This script finds them during CI's main run:
//
//   node scripts/tool-trace.mjs shims DIR   writes DIR/bin/<tool> for each hidden tool on PATH: a bash stand-in that
//                                           notes its time and its parent processes in DIR/log, then runs the real tool
//                                           (the main run puts DIR/bin first on PATH and sets AIDER_BOT_TOOL_TRACE to
//                                           DIR/log, where test/helpers/tool-trace-setup.js notes each test file's
//                                           start, its jest worker's pid and the time)
//   node scripts/tool-trace.mjs files DIR   prints the test files (one per line, relative) that ran a hidden tool:
//                                           those in whose jest worker's process tree a stand-in ran while they did
//
// `files` exits 1 (and says why) when the log cannot tell: no test file noted, or the log missing. CI then runs the
// whole suite on the simulated fresh machine, as before.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The tools scripts/fresh-machine-check.sh hides (its HIDE list; test/scripts/tool-trace.test.ts keeps them equal). */
export const HIDDEN_TOOLS = ["bwrap", "redis-server", "podman", "runc", "crun"];

/** The real executable of `name` on `pathVar`, or null. */
export function findOnPath(name, pathVar) {
  for (const dir of (pathVar ?? "").split(":")) {
    if (!dir) continue;
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return null;
}

/**
 * The stand-in for `tool` (real at `real`): notes `tool <epoch seconds> <name> <parent pids…>` in `log`, then execs
 * it in its own place (the same process), named as the callers name it (they find it on PATH), so a test looking for
 * its processes by `argv[0]` sees what it would without the stand-in.
 */
export function shimScript(tool, real, log) {
  const q = (s) => `'${s.replaceAll("'", "'\\''")}'`;
  return `#!/bin/bash
# Written by scripts/tool-trace.mjs: note who ran ${tool}, then run the real one.
chain="" p=$PPID
while [ -n "$p" ] && [ "$p" -gt 1 ]; do
  chain="$chain $p" next=""
  while read -r key value; do
    if [ "$key" = "PPid:" ]; then next=$value; break; fi
  done <"/proc/$p/status" 2>/dev/null
  p=$next
done
printf 'tool %s %s%s\\n' "$EPOCHREALTIME" ${q(tool)} "$chain" >>${q(log)} 2>/dev/null
exec -a ${q(tool)} ${q(real)} "$@"
`;
}

/**
 * The test files that ran a hidden tool, from the lines of the log: `start <epoch ms> <worker pid> <test file>` (one
 * per test file, from the jest worker that runs it) and `tool <epoch seconds> <tool> <pid> <pid>…` (the stand-in's
 * parent, its parent, … up to init). A tool run belongs to the last file started, at or before it, by a jest worker
 * among its ancestors. Runs with no jest worker among their ancestors (a daemon a test left behind) belong to no file:
 * they are counted in `unplaced`.
 */
export function filesThatRanTools(lines) {
  const starts = new Map(); // worker pid → [{ ms, file }] in time order
  const tools = [];
  for (const line of lines) {
    const [kind, time, a, ...rest] = line.split(" ");
    if (kind === "start" && a && rest.length) {
      const list = starts.get(a) ?? [];
      list.push({ ms: Number(time), file: rest.join(" ") });
      starts.set(a, list);
    } else if (kind === "tool" && a) {
      tools.push({ ms: Number(time) * 1000, tool: a, chain: rest });
    }
  }
  for (const list of starts.values()) list.sort((x, y) => x.ms - y.ms);
  const files = new Set();
  let unplaced = 0;
  for (const run of tools) {
    const worker = run.chain.find((pid) => starts.has(pid));
    const file =
      worker &&
      starts
        .get(worker)
        .filter((s) => s.ms <= run.ms + 1)
        .at(-1)?.file;
    if (file) files.add(file);
    else unplaced++;
  }
  return {
    files: [...files].sort(),
    testFiles: new Set([...starts.values()].flat().map((s) => s.file)).size,
    unplaced,
  };
}

function main([command, dir]) {
  if (!dir || !["shims", "files"].includes(command)) {
    console.error("usage: tool-trace.mjs shims|files DIR");
    return 2;
  }
  const log = path.resolve(dir, "log");
  if (command === "shims") {
    const bin = path.join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(log, "");
    for (const tool of HIDDEN_TOOLS) {
      const real = findOnPath(tool, process.env.PATH);
      if (!real) continue;
      writeFileSync(path.join(bin, tool), shimScript(tool, real, log));
      chmodSync(path.join(bin, tool), 0o755);
    }
    return 0;
  }
  if (!existsSync(log)) {
    console.error(`tool-trace: no log at ${log}`);
    return 1;
  }
  const { files, testFiles, unplaced } = filesThatRanTools(readFileSync(log, "utf8").split("\n"));
  if (testFiles === 0) {
    console.error("tool-trace: no test file noted its start (was AIDER_BOT_TOOL_TRACE set for jest?)");
    return 1;
  }
  const root = process.cwd();
  for (const f of files) console.log(path.relative(root, f));
  console.error(
    `tool-trace: ${files.length} of ${testFiles} test files ran ${HIDDEN_TOOLS.join(", ")}` +
      (unplaced ? ` (${unplaced} runs outside any test file's process tree)` : ""),
  );
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = main(process.argv.slice(2));

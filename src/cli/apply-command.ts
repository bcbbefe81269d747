import path from "node:path";
import { readFile, stat } from "node:fs/promises";
import { sourceEnv } from "../config/env.js";
import { createExec } from "../exec/create-exec.js";
import { editPaths } from "../edits/apply-edits.js";
import { normalizeEditPath } from "../edits/path-policy.js";
import { applyParsed, getEditFormat } from "../edits/registry.js";
import type { EditFormatName, Fence } from "../edits/types.js";
import { createFsWorkspace } from "../workspace/create-fs-workspace.js";
import { UsageError } from "./exit-code.js";

export interface ApplyCommandOptions {
  root: string;
  editFormat: EditFormatName;
  file: string[];
  dryRun: boolean;
  json: boolean;
  response: string;
}

/**
 * `aider-bot apply`: parse an answer and apply it under --root. Exit 0 when everything applied, 1 when anything
 * failed or was malformed, 2 on usage errors.
 */
export async function applyCommand(
  opts: ApplyCommandOptions,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<number> {
  const root = path.resolve(opts.root);
  // A root that cannot be stat'ed (missing, no permission) is the same usage error as one that is a file.
  if (!(await stat(root).catch(() => null))?.isDirectory())
    throw new UsageError(`--root ${opts.root} is not a directory`);
  const text =
    opts.response === "-"
      ? await readAll(stdin)
      : await readFile(opts.response, "utf8").catch((error: unknown) => {
          throw new UsageError(
            `cannot read the response file ${opts.response} (${reasonOf(error)}); pass a readable file, or - for stdin`,
          );
        });
  const format = getEditFormat(opts.editFormat);
  const exec = createExec({ sourceEnv: sourceEnv() });
  const workspace = createFsWorkspace(root, exec);
  const chatFiles = opts.file.map(normalizeEditPath);
  // The file list only helps the parser resolve bare file names; without it the named files still apply, so a
  // failure to list (git missing, unreadable folder) is reported and the command goes on.
  const repoFiles = await workspace.listFiles().catch((error: unknown) => {
    process.stderr.write(
      `aider-bot: could not list the files under --root (${reasonOf(error)}); only the files named with --file are known to the parser.\n`,
    );
    return [];
  });
  const fence: Fence = ["```", "```"];
  const parse = format.parse(text, { fence, chatFiles, repoFiles });
  const paths = new Set([...chatFiles, ...parse.edits.flatMap((e) => editPaths(e).map(normalizeEditPath))]);
  const snapshot = await workspace.read([...paths]);
  const result = applyParsed(format, parse, snapshot, { chatFiles, fence });
  if (!opts.dryRun) await workspace.write(result.outcome.changes);
  const failed = [...parse.failures, ...result.outcome.failed];
  const out = {
    format: format.name,
    edits: parse.edits,
    shell: parse.shell,
    applied: result.outcome.applied.map((a) => ({ path: a.path, rung: a.rung })),
    failed: failed.map((f) => ({ path: f.path, reason: f.reason, message: f.message })),
    reflection: result.reflection,
  };
  if (opts.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else {
    for (const a of out.applied)
      process.stdout.write(`${opts.dryRun ? "Would apply" : "Applied"} edit to ${a.path} (${a.rung})\n`);
    for (const f of out.failed) process.stdout.write(`Failed: ${f.path || "(no file)"}: ${f.message}\n`);
    for (const s of out.shell)
      process.stdout.write(`Suggested shell command (not run):\n  ${s.replace(/\n/g, "\n  ")}\n`);
  }
  return failed.length > 0 ? 1 : 0;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let data = "";
  for await (const chunk of stream) data += chunk.toString();
  return data;
}

/** The short reason of a file-system error (`ENOENT`…), or its message. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
}

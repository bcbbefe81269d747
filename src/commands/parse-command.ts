import { EDIT_FORMAT_NAMES, type EditFormatName } from "../edits/types.js";

export interface CommandFlags {
  files: string[];
  editFormat?: EditFormatName;
  model?: string;
}

/** Every command of the grammar, with the pull-request loops (see {@link ParseOptions}). */
export type AnyCommand =
  | Command
  | { verb: "address-reviews"; text: string; threads: string[]; flags: CommandFlags }
  | { verb: "fix-ci"; text: string; flags: CommandFlags };

export type Command =
  | { verb: "run"; text: string; flags: CommandFlags }
  | { verb: "ask"; text: string; flags: CommandFlags }
  | { verb: "retry"; flags: CommandFlags }
  /** Answer with a plan to approve; `plan drop` drops the open plan. */
  | { verb: "plan"; text: string; flags: CommandFlags }
  | { verb: "plan-drop" }
  /** Run the open plan; `text` holds the approver's corrections ("" for none). */
  | { verb: "approve"; text: string; flags: CommandFlags }
  | { verb: "undo" }
  | { verb: "cancel" }
  | { verb: "help" }
  /** This repository's spend today and this month against its limits. */
  | { verb: "usage" }
  /** `/aider checks` alone on its line: post the check commands the bot would run. */
  | { verb: "checks" }
  | { verb: "invalid"; message: string };

export interface ParseOptions {
  /**
   * Recognise `address-reviews` and `fix-ci`. Off by default so a pipeline that cannot run them yet keeps
   * reading those words as a plain instruction, as it always did.
   */
  contextVerbs?: boolean;
}

const FLAGS = ["--file", "--edit-format", "--model"] as const;
const THREAD_ID = /^[A-Za-z0-9_=-]{1,100}$/;

/**
 * Find the first `/aider …` command in a comment (pure). Commands count only at the start of a line, outside
 * quoted replies (`> `), fenced code blocks and indented code, so quoting someone's command never re-runs it.
 * Flags come first (`/aider --file src/a.ts --model m fix the bug`); everything after the first plain word —
 * including the following lines — is the instruction. Null when the comment holds no command.
 * When a comment holds several command lines, the FIRST wins and the later ones are part of its instruction text:
 * one comment is one request, so a pasted list of commands never fans out into several runs.
 * `parseCommand("/aider --file src/a.ts fix the retry loop")` → `{ verb: "run", text: "fix the retry loop", flags: { files: ["src/a.ts"] } }`
 */
export function parseCommand(body: string, word?: string): Command | null;
export function parseCommand(
  body: string,
  word: string,
  options: ParseOptions & { contextVerbs: true },
): AnyCommand | null;
export function parseCommand(body: string, word = "aider", options: ParseOptions = {}): AnyCommand | null {
  const lines = body.replace(/\r\n?/g, "\n").split("\n");
  let fence: string | null = null;
  let prevBlank = true;
  const head = new RegExp(`^/${escapeRegExp(word)}(?=\\s|$)`, "i");
  for (const [i, line] of lines.entries()) {
    const t = line.trim();
    const f = /^(`{3,}|~{3,})/.exec(t);
    if (fence) {
      if (f && t.startsWith(fence) && t.slice(fence.length).trim() === "") fence = null;
      prevBlank = false;
      continue;
    }
    if (f) {
      fence = f[1]!;
      continue;
    }
    const indentedCode = /^( {4}|\t)/.test(line) && prevBlank;
    prevBlank = t === "";
    if (indentedCode || t.startsWith(">")) continue;
    const m = head.exec(line.replace(/^ {0,3}/, ""));
    if (!m) continue;
    const rest = line.replace(/^ {0,3}/, "").slice(m[0].length);
    return interpret(rest, lines.slice(i + 1).join("\n"), word, options.contextVerbs === true);
  }
  return null;
}

function interpret(firstLine: string, following: string, word: string, contextVerbs: boolean): AnyCommand {
  const tokens = tokenize(firstLine);
  // Only the bare word: `/aider checks the parser` stays an instruction.
  if (tokens.length === 1 && tokens[0]?.value.toLowerCase() === "checks" && !following.trim())
    return { verb: "checks" };
  const flags: CommandFlags = { files: [] };
  const threads: string[] = [];
  let k = 0;
  const sub = tokens[0]?.value.toLowerCase();
  const verb =
    sub === "ask" ||
    sub === "undo" ||
    sub === "retry" ||
    sub === "cancel" ||
    sub === "help" ||
    sub === "usage" ||
    sub === "plan" ||
    sub === "approve"
      ? sub
      : contextVerbs && (sub === "address-reviews" || sub === "fix-ci")
        ? sub
        : "run";
  if (verb !== "run") k = 1;
  const allowed: readonly string[] = verb === "address-reviews" ? [...FLAGS, "--thread"] : FLAGS;
  for (; ; k++) {
    const flag = tokens[k]?.value;
    if (flag === undefined || !flag.startsWith("--")) break;
    // Both `--file PATH` and `--file=PATH` are accepted.
    const eq = flag.indexOf("=");
    const name = eq > 0 ? flag.slice(0, eq) : flag;
    if (!allowed.includes(name)) {
      return {
        verb: "invalid",
        message: `Unknown option \`${name}\`. Valid options: ${allowed.join(", ")}. Try \`/${word} help\`.`,
      };
    }
    const value = eq > 0 ? flag.slice(eq + 1) : tokens[k + 1]?.value;
    if (value === undefined || value === "" || value.startsWith("--"))
      return { verb: "invalid", message: `Option \`${name}\` needs a value.` };
    if (eq < 0) k++;
    if (name === "--thread") {
      if (!THREAD_ID.test(value))
        return {
          verb: "invalid",
          message: `\`${value.slice(0, 40)}\` is not a review thread id (copy it from the thread's link or my earlier reply).`,
        };
      threads.push(value);
    } else if (name === "--file") flags.files.push(value);
    else if (name === "--model") flags.model = value;
    else if ((EDIT_FORMAT_NAMES as readonly string[]).includes(value)) flags.editFormat = value as EditFormatName;
    else
      return {
        verb: "invalid",
        message: `Unknown edit format \`${value}\`. Valid formats: ${EDIT_FORMAT_NAMES.join(", ")}.`,
      };
  }
  const start = tokens[k]?.start ?? firstLine.length;
  const text = `${firstLine.slice(start)}\n${following}`.trim();
  switch (verb) {
    case "undo":
    case "cancel":
    case "help":
    case "usage":
      return { verb };
    case "retry":
      return { verb, flags };
    case "address-reviews":
      return { verb, text, threads, flags };
    case "fix-ci":
      return { verb, text, flags };
    case "ask":
      return text ? { verb, text, flags } : { verb: "invalid", message: `\`/${word} ask\` needs a question.` };
    case "plan":
      if (/^(drop|discard)$/i.test(text)) return { verb: "plan-drop" };
      return text
        ? { verb, text, flags }
        : { verb: "invalid", message: `\`/${word} plan\` needs an instruction: \`/${word} plan <what to change>\`.` };
    case "approve":
      return { verb, text, flags };
    default:
      return text ? { verb: "run", text, flags } : { verb: "help" };
  }
}

function tokenize(s: string): { value: string; start: number }[] {
  const out: { value: string; start: number }[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) out.push({ value: m[1] ?? m[2] ?? m[3]!, start: m.index });
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The replay benchmark's oracle model: a scripted reply computed from each request. It reads the fence the request
 * chose and the files as the bot showed them, and answers with what is left between those files and the real commit
 * (see render-answer.ts): the first answer of a noisy run with one mistake, every later one exact — as a model that
 * reads the failure it was sent and the files as they now are would.
 */
import type { EditFormatName, Fence } from "../../src/edits/types.js";
import type { RecordedRequest, ReplyFunction } from "../../testkit/scripted-llm-server.js";
import { FENCE_CANDIDATES } from "../../src/coder/choose-fence.js";
import { renderAnswer, renderNoisyAnswer, type FileChange, type Noise } from "./render-answer.js";

export const NOTHING_LEFT = "The change is complete: every file already matches what the request needs.";

/** The fence a request asked for: its system text names any fence other than three backticks (fenceNote). */
export function fenceOf(request: RecordedRequest): Fence {
  const system = request.body.messages
    .filter((m) => m.role === "system")
    .map((m) => (typeof m.content === "string" ? m.content : ""))
    .join("\n");
  if (system.includes("FOUR backticks")) return ["````", "````"];
  for (const fence of FENCE_CANDIDATES)
    if (!fence[0].startsWith("`") && system.includes(`fence every code listing with ${fence[0]}`)) return fence;
  return ["```", "```"];
}

/** A file's text as the latest message that lists it shows it (renderFiles: path, fence, text, fence), or null. */
export function shownFile(request: RecordedRequest, path: string, fence: Fence): string | null {
  const open = `\n${path}\n${fence[0]}\n`;
  // The model's own earlier answers are skipped: a SEARCH/REPLACE block for a file without a language tag looks alike.
  for (const m of [...request.body.messages].reverse()) {
    if (m.role === "assistant") continue;
    const text = typeof m.content === "string" ? m.content : "";
    const at = text.lastIndexOf(open);
    if (at < 0) continue;
    const start = at + open.length;
    const end = text.indexOf(`\n${fence[1]}\n`, start - 1);
    if (end < 0) continue;
    return text.slice(start, end + 1);
  }
  return null;
}

/** The files' final text as a listing shows them: with a final newline (renderFiles adds one where it is missing). */
const shown = (text: string | null) => (text === null || text === "" || text.endsWith("\n") ? text : `${text}\n`);

export interface OracleRun {
  /** The model requests answered so far in this run. */
  answered: number;
  /** The reply functions to queue for one run (one per possible round). */
  replies: ReplyFunction[];
}

/**
 * An oracle for one run: `wanted` maps each path the real commit changes (outside its tests) to its text after the
 * commit (null: deleted). With `noise`, the first answer makes that mistake.
 */
export function oracleRun(
  format: EditFormatName,
  wanted: ReadonlyMap<string, string | null>,
  noise: Noise | null,
  rounds = 4,
): OracleRun {
  const run: OracleRun = { answered: 0, replies: [] };
  const reply: ReplyFunction = (request) => {
    const fence = fenceOf(request);
    const changes: FileChange[] = [...wanted].map(([path, text]) => ({
      path,
      now: shownFile(request, path, fence),
      wanted: shown(text),
    }));
    const first = run.answered++ === 0;
    const text =
      first && noise ? renderNoisyAnswer(format, fence, changes, noise) : renderAnswer(format, fence, changes);
    return text || NOTHING_LEFT;
  };
  for (let i = 0; i < rounds; i++) run.replies.push(reply);
  return run;
}

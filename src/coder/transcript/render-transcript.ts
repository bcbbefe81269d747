import type { TranscriptEvent } from "./transcript-event.js";

/** One section of a transcript: a heading line that is always kept, and a body the cut may shorten. */
interface Part {
  head: string;
  body: string;
  /** Render the body as a code block (model text, outputs) or as markdown (lists we write). */
  code: boolean;
}

export interface RenderTranscriptOptions {
  /** The longest text to return (GitHub's Check Run `output.text` takes 65,535 characters). */
  limit: number;
  /** Applied to every piece of text before it is measured (the redactor of GitHub writes). */
  redact?: (text: string) => string;
  /** First line, e.g. the run's id. */
  title?: string;
}

/**
 * A run's transcript as markdown (pure): per round, the messages sent to the model (a message already sent in an
 * earlier round is named, not repeated), its answer, each edit's outcome, each check and its output. Redacted part
 * by part, then fitted to `limit`: the longest bodies are cut first (their head and tail kept, with a note saying how
 * much was cut) until the whole fits, so short parts like a failing check's output survive a long file listing.
 * `renderTranscript(recorder.events(), { limit: 65_535, redact })`
 */
export function renderTranscript(events: readonly TranscriptEvent[], options: RenderTranscriptOptions): string {
  const redact = options.redact ?? ((t: string) => t);
  const parts = toParts(events).map((p) => ({ ...p, head: redact(p.head), body: redact(p.body) }));
  const title = redact(options.title ?? "Run transcript");
  const intro = `# ${title}\n\n${parts.length ? "" : "_Nothing was recorded: the run ended before it asked the model._\n"}`;
  const cap = fitCap(parts, options.limit - intro.length);
  const text = intro + parts.map((p) => renderPart(p, cap)).join("\n");
  // The cap accounts for every part's frame; this only guards a limit too small for the headings themselves.
  return text.length <= options.limit
    ? text
    : `${text.slice(0, Math.max(0, options.limit - 40))}\n\n… (transcript cut at its limit)`;
}

function toParts(events: readonly TranscriptEvent[]): Part[] {
  const parts: Part[] = [];
  const sent = new Map<string, string>();
  for (const e of events) {
    const at = `Round ${e.round}${e.phase ? ` (${e.phase})` : ""}`;
    switch (e.kind) {
      case "request":
        parts.push({
          head: `## ${at} · request to \`${e.model}\` (${e.messages.length} messages)`,
          body: "",
          code: false,
        });
        e.messages.forEach((m, i) => {
          const key = `${m.role}\u0000${m.content}`;
          const earlier = sent.get(key);
          if (earlier) parts.push({ head: `**${i + 1}. ${m.role}** — same as ${earlier}`, body: "", code: false });
          else {
            sent.set(key, `${at.toLowerCase()}, message ${i + 1}`);
            parts.push({ head: `**${i + 1}. ${m.role}**`, body: m.content, code: true });
          }
        });
        break;
      case "reply": {
        const usage = e.tokens
          ? `, ${e.tokens.prompt} prompt + ${e.tokens.completion} completion tokens${cacheText(e.tokens)}`
          : "";
        parts.push({
          head: `### ${at} · answer${e.finishReason ? ` (finish: ${e.finishReason}${usage})` : usage ? ` (${usage.slice(2)})` : ""}`,
          body: e.text,
          code: true,
        });
        break;
      }
      case "model-error":
        parts.push({ head: `### ${at} · the model call failed`, body: e.message, code: true });
        break;
      case "edits": {
        const lines = [
          ...e.written.filter((p) => !e.deleted.includes(p)).map((p) => `- ✅ edited \`${p}\``),
          ...e.deleted.map((p) => `- 🗑 deleted \`${p}\``),
          ...e.failures.map((f) => `- ❌ \`${f.path || "(no file)"}\`: ${f.message.split("\n")[0]}`),
        ];
        parts.push({
          head: `### ${at} · edits`,
          body: lines.length ? lines.join("\n") : "_The answer held no edits._",
          code: false,
        });
        if (e.reflection) parts.push({ head: `${at} · sent back to the model:`, body: e.reflection, code: true });
        break;
      }
      case "check": {
        const what = e.command ? `\`${e.command}\`` : "built-in syntax check";
        const exit =
          e.exitCode === undefined ? "" : `, exit ${e.exitCode === null ? "none (killed or not started)" : e.exitCode}`;
        parts.push({
          head: `### ${at} · ${e.check} ${what}: ${e.ok ? "passed" : "failed"}${exit}`,
          body: e.output,
          code: true,
        });
        break;
      }
      case "note":
        parts.push({ head: `### ${at} · ${e.text}`, body: "", code: false });
        break;
    }
  }
  return parts;
}

/** The longest a body may stay so that everything fits in `room` (Infinity: nothing needs cutting). */
function fitCap(parts: readonly Part[], room: number): number {
  const size = (cap: number) => parts.reduce((n, p) => n + renderPart(p, cap).length + 1, 0);
  if (size(Infinity) <= room) return Infinity;
  // The largest cap that fits, by bisection over body lengths (size grows with the cap).
  let lo = 0;
  let hi = Math.max(0, ...parts.map((p) => p.body.length));
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(mid) <= room) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function renderPart(p: Part, cap: number): string {
  const body = cut(p.body, cap);
  if (!body) return `${p.head}\n`;
  return p.code ? `${p.head}\n\n${fenced(body)}\n` : `${p.head}\n\n${body}\n`;
}

/** `text` within `cap` characters: its head and tail, with a note of what was cut between them. */
export function cut(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const note = (n: number) => `\n… (${n} characters cut) …\n`;
  const keep = Math.max(0, cap - note(text.length).length);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  return `${text.slice(0, head)}${note(text.length - keep)}${tail > 0 ? text.slice(-tail) : ""}`;
}

/** A code block whose fence is longer than any backtick run inside, so model text cannot end it early. */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

/** What the prompt cache did for one answer: `, 24180 from cache, 2900 written to cache`, or nothing. */
function cacheText(t: { cacheRead?: number; cacheWrite?: number }): string {
  const read = t.cacheRead ? `, ${t.cacheRead} from cache` : "";
  const wrote = t.cacheWrite ? `, ${t.cacheWrite} written to cache` : "";
  return read + wrote;
}

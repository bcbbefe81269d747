import { jsonField } from "./json-field.js";

/** Hidden markers that let the bot find its own comments and state again (state lives in GitHub, not a database). */
export const runMarker = (jobId: string) => `<!-- aider-bot:run:${jobId} -->`;
export const unauthorizedMarker = (login: string) => `<!-- aider-bot:unauthorized:${login.toLowerCase()} -->`;
export const configMarker = "<!-- aider-bot:config-problems -->";
/** A one-off reply (help, usage error, refusal) to one delivery: a redelivered webhook edits it instead of repeating it. */
export const replyMarker = (deliveryId: string) => `<!-- aider-bot:reply:${deliveryId} -->`;
/** The reply of one run in one review thread: a re-run of the job (after a crash) finds it and does not answer twice. */
export const threadReplyMarker = (jobId: string, threadId: string) =>
  `<!-- aider-bot:thread-reply:${jobId}:${threadId} -->`;

/** Where a request too long to keep in the marker can be read again: the comment that asked for it. */
export interface RequestRef {
  kind: "issue-comment" | "review-comment";
  id: number;
}

export interface StoredRequest {
  verb: "run" | "ask";
  /** The instruction; absent when it is stored by reference (`textRef`). */
  text?: string;
  textRef?: RequestRef;
  files: string[];
  editFormat?: string;
  model?: string;
  /** The pull-request loop the request ran (address-reviews, fix-ci): `retry` runs it again as such. */
  mode?: StoredMode;
}

/** A run's mode as a request marker keeps it (an automatic CI fix's round is not kept: a retry is a manual fix-ci). */
export type StoredMode =
  { kind: "address-reviews"; threads: string[]; extra: string } | { kind: "fix-ci"; extra: string };

/** `mode` as read from a marker: anything but a well-formed mode is no mode (the request runs as a plain one). */
function storedMode(mode: unknown): StoredMode | undefined {
  const [kind, threads, extra] = [jsonField(mode, "kind"), jsonField(mode, "threads"), jsonField(mode, "extra")];
  if (typeof extra !== "string") return undefined;
  if (kind === "fix-ci") return { kind: "fix-ci", extra };
  if (kind !== "address-reviews" || !Array.isArray(threads)) return undefined;
  const ids = threads.filter((t): t is string => typeof t === "string");
  return ids.length === threads.length ? { kind: "address-reviews", threads: ids, extra } : undefined;
}

/**
 * Longest request marker we write. A comment may hold 65,536 characters and a request may be nearly as long, so a
 * longer request is kept by reference to the comment that asked for it (fetched again by `/aider retry`), or, with
 * no such comment, cut to fit.
 */
export const REQUEST_MARKER_LIMIT = 4_000;

/**
 * The request encoded into the status comment (base64: untrusted text can never close the HTML comment), never
 * longer than {@link REQUEST_MARKER_LIMIT}: a long `text` is replaced by `ref` when there is one, else cut.
 */
export function requestMarker(req: StoredRequest, ref?: RequestRef): string {
  const encode = (r: StoredRequest) =>
    `<!-- aider-bot:request:${Buffer.from(JSON.stringify(r), "utf8").toString("base64")} -->`;
  const whole = encode(req);
  if (whole.length <= REQUEST_MARKER_LIMIT) return whole;
  const { text, ...rest } = req;
  if (ref) return encode({ ...rest, textRef: ref });
  // base64 grows 4/3, and JSON may escape characters: halve the budget, then cut until it fits.
  let keep = Math.floor(REQUEST_MARKER_LIMIT / 2);
  for (;;) {
    const m = encode({ ...rest, text: (text ?? "").slice(0, keep) });
    if (m.length <= REQUEST_MARKER_LIMIT || keep === 0) return m;
    keep = Math.floor(keep / 2);
  }
}

/** The request stored in a status comment's body, or null. */
export function readRequestMarker(body: string): StoredRequest | null {
  const m = /<!-- aider-bot:request:([A-Za-z0-9+/=]+) -->/.exec(body);
  if (!m) return null;
  try {
    const v = JSON.parse(Buffer.from(m[1]!, "base64").toString("utf8")) as StoredRequest;
    const ref = v.textRef;
    const hasRef = !!ref && (ref.kind === "issue-comment" || ref.kind === "review-comment") && Number.isInteger(ref.id);
    if (!((typeof v.text === "string" || hasRef) && (v.verb === "run" || v.verb === "ask") && Array.isArray(v.files)))
      return null;
    const { mode, ...rest } = v;
    const kept = storedMode(mode);
    return kept ? { ...rest, mode: kept } : rest;
  } catch {
    // Not our base64 JSON (a user pasted a look-alike marker): the comment holds no request to resume.
    return null;
  }
}

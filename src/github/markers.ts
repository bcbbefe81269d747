/** Hidden markers that let the bot find its own comments and state again (state lives in GitHub, not a database). */
export const runMarker = (jobId: string) => `<!-- aider-bot:run:${jobId} -->`;
export const unauthorizedMarker = (login: string) => `<!-- aider-bot:unauthorized:${login.toLowerCase()} -->`;
export const configMarker = "<!-- aider-bot:config-problems -->";
/** A one-off reply (help, usage error, refusal) to one delivery: a redelivered webhook edits it instead of repeating it. */
export const replyMarker = (deliveryId: string) => `<!-- aider-bot:reply:${deliveryId} -->`;

export interface StoredRequest {
  verb: "run" | "ask";
  text: string;
  files: string[];
  editFormat?: string;
  model?: string;
}

/** The request encoded into the status comment (base64: untrusted text can never close the HTML comment). */
export function requestMarker(req: StoredRequest): string {
  return `<!-- aider-bot:request:${Buffer.from(JSON.stringify(req), "utf8").toString("base64")} -->`;
}

/** The request stored in a status comment's body, or null. */
export function readRequestMarker(body: string): StoredRequest | null {
  const m = /<!-- aider-bot:request:([A-Za-z0-9+/=]+) -->/.exec(body);
  if (!m) return null;
  try {
    const v = JSON.parse(Buffer.from(m[1]!, "base64").toString("utf8")) as StoredRequest;
    return typeof v.text === "string" && (v.verb === "run" || v.verb === "ask") && Array.isArray(v.files) ? v : null;
  } catch {
    return null;
  }
}

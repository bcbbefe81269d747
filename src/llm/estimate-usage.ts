import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { countTokens, loadTokenizer } from "./count-tokens.js";
import { imageTokens } from "./image-tokens.js";
import type { TokenUsage } from "./types.js";

/** Chat formats wrap each message in a few role/separator tokens (about 3 for OpenAI's), plus 3 to prime the answer. */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

/** Usage of one exchange counted with the o200k tokenizer, for endpoints that report none. */
export async function estimateUsage(
  messages: readonly ChatCompletionMessageParam[],
  answer: string,
): Promise<TokenUsage> {
  await loadTokenizer();
  let prompt = REPLY_PRIMING;
  for (const message of messages) prompt += PER_MESSAGE + contentTokens(message.content);
  return { prompt, completion: countTokens(answer) };
}

/** A message's text, or its parts: text parts counted, image parts by their size (read back from the data URL). */
function contentTokens(content: ChatCompletionMessageParam["content"]): number {
  if (typeof content === "string") return countTokens(content);
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content as readonly { type: string; text?: string; image_url?: { url: string } }[]) {
    if (part.type === "text") n += countTokens(part.text ?? "");
    else if (part.type === "image_url") n += imagePartTokens(part.image_url?.url ?? "");
  }
  return n;
}

/** Tokens of an image part: its size from the PNG/GIF/WebP/JPEG header in the data URL, or a 1024×1024 guess. */
function imagePartTokens(url: string): number {
  const size = sizeFromDataUrl(url);
  return size ? imageTokens(size.width, size.height) : imageTokens(1024, 1024);
}

function sizeFromDataUrl(url: string): { width: number; height: number } | null {
  const comma = url.indexOf(",");
  if (!url.startsWith("data:image/") || comma < 0) return null;
  const head = Buffer.from(url.slice(comma + 1, comma + 1 + 64), "base64");
  if (head.length >= 24 && head.readUInt32BE(0) === 0x89504e47)
    return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  if (head.length >= 10 && head.toString("latin1", 0, 3) === "GIF")
    return { width: head.readUInt16LE(6), height: head.readUInt16LE(8) };
  return null;
}

import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ChatMessage } from "./types.js";

/**
 * One message as the OpenAI chat API takes it, its text passed through `redact`. A user message with images becomes
 * a list of parts: its text first, then one `image_url` part per image (a `data:` URL, so the endpoint fetches
 * nothing). Pure.
 */
export function toOpenAiMessage(m: ChatMessage, redact: (text: string) => string): ChatCompletionMessageParam {
  const text = redact(m.content);
  if (m.role === "user" && m.images?.length) {
    return {
      role: "user",
      content: [
        { type: "text", text },
        ...m.images.map((i) => ({ type: "image_url" as const, image_url: { url: i.dataUrl } })),
      ],
    };
  }
  return { role: m.role, content: text };
}

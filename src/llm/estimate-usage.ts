import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { countTokens, loadTokenizer } from "./count-tokens.js";
import type { TokenUsage } from "./types.js";

/** Chat formats wrap each message in a few role/separator tokens (about 3 for OpenAI's), plus 3 to prime the answer. */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

/** Usage of one exchange counted with the o200k tokenizer, for endpoints that report none. */
export async function estimateUsage(messages: readonly ChatCompletionMessageParam[], answer: string): Promise<TokenUsage> {
  await loadTokenizer();
  let prompt = REPLY_PRIMING;
  for (const message of messages) prompt += PER_MESSAGE + countTokens(typeof message.content === "string" ? message.content : "");
  return { prompt, completion: countTokens(answer) };
}

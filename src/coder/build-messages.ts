import type { Fence } from "../edits/types.js";
import type { ChatMessage } from "../llm/types.js";
import { getPrompts, type PromptMode } from "./prompts/get-prompts.js";
import {
  CHAT_FILES_ACK,
  CHAT_FILES_PREFIX,
  EXAMPLES_DONE_ASSISTANT,
  EXAMPLES_DONE_USER,
  NAME_FILES_ACK,
  NAME_FILES_USER,
  READ_ONLY_ACK,
  READ_ONLY_PREFIX,
  REPO_MAP_ACK,
  REPO_MAP_PREFIX,
} from "./prompts/shared-text.js";
import { IMAGES_ACK, imagesMessage, type ImageSet } from "./issue-images.js";
import { renderFiles, type FileContent } from "./render-files.js";
import { INSTRUCTIONS_ACK } from "./repo-instructions.js";
import { renderUntrusted, UNTRUSTED_ACK } from "./render-untrusted.js";

export interface BuildMessagesInput {
  mode: PromptMode;
  fence: Fence;
  chatFiles: readonly FileContent[];
  readFiles: readonly FileContent[];
  /** Repo map text, or null/empty when there is none. */
  repoMap?: string | null;
  untrustedContext?: readonly { label: string; text: string }[];
  /**
   * The pull request's context (diff, conversation, review threads, checks, earlier runs) as rendered by
   * `renderContextBlocks` from src/context: sent as its own untrusted-data message before `untrustedContext`.
   */
  prContext?: readonly { label: string; text: string }[];
  /** The repository's instruction files as rendered by `renderInstructions` (repo-instructions), or null. */
  instructions?: string | null;
  /** The images of the issue or PR (and notes on those left out), sent after the untrusted data. */
  images?: ImageSet;
  /**
   * Earlier turns of this run (user/assistant pairs), after the chat files. A run normally builds this request once
   * and then only appends to it (round-layout); `done` is non-empty only when it has to start over.
   */
  done: readonly ChatMessage[];
  /** The message to send now. */
  message: string;
}

export function pair(user: string, assistant: string): ChatMessage[] {
  return [
    { role: "user", content: user },
    { role: "assistant", content: assistant },
  ];
}

/**
 * Assemble one request with its stable parts first (docs/behaviour.md#the-edit-loop): system (+ format reminder),
 * worked examples, the repository's instruction files, read-only files, repo map, untrusted data (and the issue's
 * images), chat files, then earlier turns and the current message. Unlike Aider, the chat files come before the
 * earlier turns, so that each later round of a run only appends to this request and the provider's prompt cache
 * can serve all of it (round-layout). Pure.
 * When no file is in the chat and a map is present, the chat-files slot asks the model to name the files it needs.
 */
export function buildMessages(input: BuildMessagesInput): ChatMessage[] {
  const prompts = getPrompts(input.mode);
  const reminder = prompts.reminder(input.fence);
  const system = reminder ? `${prompts.system(input.fence)}\n\n${reminder}` : prompts.system(input.fence);
  const messages: ChatMessage[] = [{ role: "system", content: system }];

  const examples = prompts.examples(input.fence);
  if (examples.length > 0) messages.push(...examples, ...pair(EXAMPLES_DONE_USER, EXAMPLES_DONE_ASSISTANT));

  // The repository's guidance comes right after our own rules and examples, and is framed as below them.
  if (input.instructions) messages.push(...pair(input.instructions, INSTRUCTIONS_ACK));
  if (input.readFiles.length > 0) {
    messages.push(...pair(READ_ONLY_PREFIX + renderFiles(input.readFiles, input.fence), READ_ONLY_ACK));
  }
  const map = input.repoMap?.trim() ? input.repoMap : null;
  if (map) messages.push(...pair(`${REPO_MAP_PREFIX}\n${map}`, REPO_MAP_ACK));
  if (input.prContext?.length) messages.push(...pair(renderUntrusted(input.prContext), UNTRUSTED_ACK));
  if (input.untrustedContext?.length) messages.push(...pair(renderUntrusted(input.untrustedContext), UNTRUSTED_ACK));
  const images = imagesMessage(input.images);
  if (images) messages.push(images, { role: "assistant", content: IMAGES_ACK });

  if (input.chatFiles.length > 0) {
    messages.push(...pair(CHAT_FILES_PREFIX + renderFiles(input.chatFiles, input.fence), CHAT_FILES_ACK));
  } else if (map && input.mode !== "ask" && input.mode !== "architect") {
    messages.push(...pair(NAME_FILES_USER, NAME_FILES_ACK));
  }

  messages.push(...input.done);

  messages.push({ role: "user", content: input.message });
  return messages;
}

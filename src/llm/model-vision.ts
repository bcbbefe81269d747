/**
 * Which models accept images, by family. A model not listed is treated as text-only: sending it an image
 * part makes most endpoints refuse the whole request. `vision: true|false` in `.github/aider.yml` overrides this. Pure.
 */
const VISION_FAMILIES: readonly RegExp[] = [
  /^gpt-4o(?!-audio|-realtime|-search|-transcribe|-mini-tts)/, // gpt-4o, gpt-4o-mini, chatgpt-4o-latest (prefix stripped below)
  /^gpt-4\.1/,
  /^gpt-4\.5/,
  /^gpt-4-turbo(?!-preview)/,
  /^gpt-4-vision/,
  /^gpt-5(?!.*-chat-latest-audio)/,
  /^o1(?!-mini|-preview)/,
  /^o3(?!-mini)/,
  /^o4-mini/,
  /^claude-3/,
  /^claude-(?:opus|sonnet|haiku)-4/,
  /^claude-[a-z]*-?4/,
  /^gemini/,
  /^pixtral/,
  /^mistral-(?:medium|small)-(?:3|latest)/,
  /^llama-?3\.2-.*vision/,
  /^llama-4/,
  /^qwen.*-vl/,
  /^grok-.*vision/,
  /^grok-4/,
];

/**
 * Whether the model takes image parts: the override when set, else the family table. Provider prefixes
 * (`openai/`, `anthropic/`, `openrouter/google/`) and a `chatgpt-` prefix are ignored.
 * @example modelAcceptsImages("gpt-4o") === true; modelAcceptsImages("gpt-3.5-turbo") === false
 */
export function modelAcceptsImages(model: string, override?: boolean): boolean {
  if (override !== undefined) return override;
  const name = model
    .toLowerCase()
    .split("/")
    .at(-1)!
    .replace(/^chatgpt-/, "gpt-");
  return VISION_FAMILIES.some((re) => re.test(name));
}

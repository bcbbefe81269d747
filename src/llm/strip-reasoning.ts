/**
 * Remove reasoning sections (`<think>…</think>`, `<thinking>`, `<reasoning>`) that some models put in the answer,
 * so their drafts are never parsed as edits. An unclosed section at the very start is dropped up to its end tag's
 * absence — i.e. everything, which is safer than parsing half-thoughts.
 */
export function stripReasoning(text: string): string {
  let out = text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>\s*/gi, "");
  const open = /^\s*<(think|thinking|reasoning)>/i.exec(out);
  if (open) out = "";
  return out.replace(/^\s*\n/, "");
}

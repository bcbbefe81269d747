import type { Fence } from "./types.js";

/** The opening line of a code listing: the fence, plus a language tag when the fence is made of backticks. */
export function openFence(fence: Fence, lang: string): string {
  return fence[0].startsWith("`") ? `${fence[0]}${lang}` : fence[0];
}

/** Extra rule when four backticks were chosen: models tend to fall back to three (Aider #2879). */
export function fenceNote(fence: Fence): string {
  if (fence[0] === "````") {
    return "\nIMPORTANT: some files here contain triple-backtick lines, so fence every code listing with FOUR backticks (````), never three.\n";
  }
  if (!fence[0].startsWith("`")) {
    return `\nIMPORTANT: fence every code listing with ${fence[0]} … ${fence[1]} instead of backticks.\n`;
  }
  return "";
}

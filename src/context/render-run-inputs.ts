import type { ImageSet } from "../coder/issue-images.js";
import type { InstructionSet, InstructionUse } from "../coder/repo-instructions.js";
import { formatNumber } from "../format-number.js";
import { imageTokens } from "../llm/image-tokens.js";

const KIND: Record<InstructionUse["kind"], string> = {
  agents: "AGENTS.md",
  conventions: "conventions",
  claude: "CLAUDE.md",
  copilot: "Copilot instructions",
  read: "`read:`",
};

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/**
 * The status comment's section on the repository's instruction files and the issue's images: which
 * files went in (from where, how many tokens, shortened or left out), and which images were sent or left out and
 * why. Null when the run had neither. Pure.
 */
export function renderRunInputs(
  instructions: InstructionSet | undefined,
  used: readonly InstructionUse[] | undefined,
  images: ImageSet | undefined,
): string | null {
  const rows: string[] = [];
  let total = 0;
  const shown = new Set<string>();
  for (const u of used ?? []) {
    shown.add(u.path);
    total += u.tokens;
    const note =
      u.mode === "left-out"
        ? `left out: over \`context.instructions\` (${formatNumber(instructions?.maxTokens ?? 0)} tokens)`
        : u.mode === "shortened"
          ? `shortened to fit \`context.instructions\``
          : u.scope
            ? `for files under \`${u.scope}\``
            : "";
    rows.push(`| \`${cell(u.path)}\` | ${KIND[u.kind]} | ${formatNumber(u.tokens)} | ${cell(note)} |`);
  }
  // Nested AGENTS.md files whose folders no chat file was in are read but not shown: not worth a row each.
  const unusedRead = (instructions?.files ?? []).filter((f) => !shown.has(f.path) && f.kind === "read");
  for (const f of unusedRead) rows.push(`| \`${cell(f.path)}\` | ${KIND[f.kind]} | 0 | not shown |`);
  for (const img of images?.images ?? []) {
    const t = imageTokens(img.part.width, img.part.height);
    total += t;
    rows.push(
      `| ${cell(img.label)} | image | ~${formatNumber(t)} | ${img.type.slice(6).toUpperCase()} ${img.part.width}×${img.part.height}, ${formatNumber(Math.round(img.bytes / 1024))} KB |`,
    );
  }
  const notes = [...(instructions?.notes ?? []), ...(images?.notes ?? [])];
  if (rows.length === 0 && notes.length === 0) return null;
  const from =
    instructions && (used?.length || instructions.files.length)
      ? ` Instruction files are read from ${instructions.from}.`
      : "";
  const table = rows.length
    ? ["| File or image | Kind | Tokens | Note |", "|---|---|---:|---|", ...rows].join("\n")
    : "";
  const list = notes.map((n) => `- ${n}`).join("\n");
  return `<details><summary>Repository instructions and images (${formatNumber(total)} tokens)</summary>\n\n${[table, list].filter(Boolean).join("\n\n")}${from ? `\n\n${from.trim()}` : ""}\n\n</details>`;
}

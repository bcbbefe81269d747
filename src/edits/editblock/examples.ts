import type { Fence } from "../types.js";
import type { PromptTurn } from "../types.js";
import { openFence } from "../format-prompts.js";

/** Where the path of a SEARCH/REPLACE block goes: before the fence (`diff`) or inside it (`diff-fenced`). */
export type PathPlacement = "before-fence" | "inside-fence";

/** Render one SEARCH/REPLACE block; an empty `search` renders an empty SEARCH section (new file). */
function searchReplaceBlock(
  fence: Fence,
  placement: PathPlacement,
  path: string,
  search: string,
  replace: string,
): string {
  const lang = path.endsWith(".py") ? "python" : "typescript";
  const head = placement === "before-fence" ? [path, openFence(fence, lang)] : [openFence(fence, lang), path];
  const section = (text: string): string[] => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
  return [
    ...head,
    "<<<<<<< SEARCH",
    ...section(search),
    "=======",
    ...section(replace),
    ">>>>>>> REPLACE",
    fence[1],
  ].join("\n");
}

/** Two worked examples (our own): a focused change with a deletion, and moving code into a new file. */
export function searchReplaceExamples(fence: Fence, placement: PathPlacement): PromptTurn[] {
  const b = (path: string, search: string, replace: string): string =>
    searchReplaceBlock(fence, placement, path, search, replace);
  return [
    { role: "user", content: "Make `formatPrice` use Intl.NumberFormat instead of our hand-written rounding helper." },
    {
      role: "assistant",
      content: `I will build the string with \`Intl.NumberFormat\` in \`formatPrice\` and delete \`roundTo\`, which nothing else uses.

${b(
  "src/format/price.ts",
  "export function formatPrice(cents: number, currency: string): string {\n  return `${currency} ${roundTo(cents / 100, 2)}`;\n}\n",
  'export function formatPrice(cents: number, currency: string): string {\n  return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(cents / 100);\n}\n',
)}

${b("src/format/price.ts", "function roundTo(value: number, digits: number): string {\n  return value.toFixed(digits);\n}\n\n", "")}`,
    },
    { role: "user", content: "Move `slugify` out of src/routes.ts into its own module." },
    {
      role: "assistant",
      content: `I will create \`src/slugify.ts\` with the function, then remove it from \`src/routes.ts\` and import it there.

${b("src/slugify.ts", "", 'export function slugify(title: string): string {\n  return title.toLowerCase().trim().replace(/[^a-z0-9]+/g, "-");\n}\n')}

${b("src/routes.ts", 'import { Router } from "./router.js";\n', 'import { Router } from "./router.js";\nimport { slugify } from "./slugify.js";\n')}

${b("src/routes.ts", 'function slugify(title: string): string {\n  return title.toLowerCase().trim().replace(/[^a-z0-9]+/g, "-");\n}\n\n', "")}`,
    },
  ];
}

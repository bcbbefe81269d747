import { createRequire } from "node:module";
import path from "node:path";
import { Language, Parser } from "web-tree-sitter";

/** Languages we parse, with their grammar package and wasm file. */
export type LanguageId =
  "typescript" | "tsx" | "javascript" | "python" | "go" | "rust" | "java" | "c" | "cpp" | "ruby" | "c_sharp" | "php";

const GRAMMARS: Record<LanguageId, { pkg: string; wasm: string }> = {
  typescript: { pkg: "tree-sitter-typescript", wasm: "tree-sitter-typescript.wasm" },
  tsx: { pkg: "tree-sitter-typescript", wasm: "tree-sitter-tsx.wasm" },
  javascript: { pkg: "tree-sitter-javascript", wasm: "tree-sitter-javascript.wasm" },
  python: { pkg: "tree-sitter-python", wasm: "tree-sitter-python.wasm" },
  go: { pkg: "tree-sitter-go", wasm: "tree-sitter-go.wasm" },
  rust: { pkg: "tree-sitter-rust", wasm: "tree-sitter-rust.wasm" },
  java: { pkg: "tree-sitter-java", wasm: "tree-sitter-java.wasm" },
  c: { pkg: "tree-sitter-c", wasm: "tree-sitter-c.wasm" },
  cpp: { pkg: "tree-sitter-cpp", wasm: "tree-sitter-cpp.wasm" },
  ruby: { pkg: "tree-sitter-ruby", wasm: "tree-sitter-ruby.wasm" },
  c_sharp: { pkg: "tree-sitter-c-sharp", wasm: "tree-sitter-c_sharp.wasm" },
  php: { pkg: "tree-sitter-php", wasm: "tree-sitter-php.wasm" },
};

const EXTENSIONS: Record<string, LanguageId> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".py": "python",
  ".pyi": "python",
  ".go": "go",
  ".rs": "rust",
  ".java": "java",
  ".c": "c",
  ".h": "c",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".hpp": "cpp",
  ".hh": "cpp",
  ".hxx": "cpp",
  ".rb": "ruby",
  ".cs": "c_sharp",
  ".php": "php",
};

/** GitHub's names (linguist, a repository's `language`) of the languages we parse. */
const GITHUB_NAMES: Record<string, LanguageId> = {
  TypeScript: "typescript",
  JavaScript: "javascript",
  Python: "python",
  Go: "go",
  Rust: "rust",
  Java: "java",
  C: "c",
  "C++": "cpp",
  Ruby: "ruby",
  "C#": "c_sharp",
  PHP: "php",
};

/** The language GitHub names a repository's main one (`repository.language`), if we parse it. `languageForGitHubName("C++") === "cpp"` */
export function languageForGitHubName(name: string | null | undefined): LanguageId | null {
  return (name && Object.hasOwn(GITHUB_NAMES, name) ? GITHUB_NAMES[name] : undefined) ?? null;
}

/** The language of a path by its extension, or null. `languageForPath("src/App.tsx") === "tsx"` */
export function languageForPath(filePath: string): LanguageId | null {
  if (filePath.endsWith(".d.ts")) return "typescript";
  return EXTENSIONS[path.extname(filePath).toLowerCase()] ?? null;
}

const require = createRequire(import.meta.url);
let initialised: Promise<void> | null = null;
const loaded = new Map<LanguageId, Promise<Language>>();

/** Absolute directory of a grammar package (where its `queries/` live). */
function grammarDir(id: LanguageId): string {
  return path.dirname(require.resolve(`${GRAMMARS[id].pkg}/package.json`));
}

/** Start tree-sitter's WebAssembly runtime (once; ~0.1 s of CPU): a spare job process does it ahead of its job. */
export function initTreeSitter(): Promise<void> {
  initialised ??= Parser.init();
  return initialised;
}

/** Load (once) the tree-sitter language for an id. */
export async function loadLanguage(id: LanguageId): Promise<Language> {
  await initTreeSitter();
  let lang = loaded.get(id);
  if (!lang) {
    lang = Language.load(path.join(grammarDir(id), GRAMMARS[id].wasm));
    loaded.set(id, lang);
  }
  return lang;
}

/** A fresh parser for a language. Call `parser.delete()` and `tree.delete()` when done. */
export async function createParser(id: LanguageId): Promise<Parser> {
  const language = await loadLanguage(id);
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTagExtractor } from "../../src/repomap/extract-tags.js";
import type { Tag } from "../../src/repomap/types.js";

const SAMPLE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/repomap/sample");
const extractor = createTagExtractor();
afterAll(() => extractor.dispose());

async function tagsOf(rel: string): Promise<Tag[]> {
  const ft = await extractor.extract(rel, await readFile(path.join(SAMPLE, rel), "utf8"));
  if (!ft) throw new Error(`no tags for ${rel}`);
  return ft.tags;
}
const names = (tags: Tag[], kind: "def" | "ref") => tags.filter((t) => t.kind === kind).map((t) => t.name);

// One row per language: a definition and a reference our queries must find in the sample file.
const cases: [string, string, string][] = [
  ["src/store.ts", "createTodoStore", "matchesFilter"],
  ["src/app.tsx", "App", "Header"],
  ["src/format.js", "shoutTitle", "formatTitle"],
  ["py/inventory.py", "Garage", "park_car"],
  ["go/server.go", "NewRequest", "Sprintf"],
  ["rust/lib.rs", "bump", "tick"],
  ["java/Main.java", "politeGreeting", "println"],
  ["c/buffer.c", "buffer_append", "memcpy"],
  ["c/buffer.h", "buffer_new", "buffer_t"],
  ["cpp/shape.cpp", "totalArea", "pow"],
  ["ruby/greeter.rb", "format_greeting", "greet"],
  ["csharp/Account.cs", "Validate", "Deposit"],
  ["php/cart.php", "checkout", "addItem"],
];

describe("extract-tags", () => {
  test.each(cases)("%s: def %s, ref %s", async (rel, def, ref) => {
    const tags = await tagsOf(rel);
    expect(names(tags, "def")).toContain(def);
    expect(names(tags, "ref")).toContain(ref);
    for (const t of tags) expect(t.relPath).toBe(rel);
  });

  test("TypeScript: classes, interfaces, type aliases, enums, methods, arrow constants, calls, new, types", async () => {
    const tags = await tagsOf("src/store.ts");
    expect(names(tags, "def")).toEqual(
      expect.arrayContaining([
        "Todo",
        "TodoFilter",
        "Priority",
        "TodoStore",
        "addTodo",
        "filterTodos",
        "matchesFilter",
        "createTodoStore",
      ]),
    );
    expect(names(tags, "ref")).toEqual(
      expect.arrayContaining(["TodoStore", "Todo", "TodoFilter", "matchesFilter", "push"]),
    );
    const store = tags.find((t) => t.kind === "def" && t.name === "TodoStore");
    expect(store?.line).toBe(15);
  });

  test("TSX: arrow-function components are definitions, JSX component usage is a reference, HTML tags are not", async () => {
    const code = [
      "export const Card = ({ title }: { title: string }) => <div><Badge />{title}</div>;",
      "const List = function () { return <ui.Panel><Card title='x' /></ui.Panel>; };",
      "export const VERSION = 3;",
    ].join("\n");
    const ft = await extractor.extract("x.tsx", code);
    const tags = ft?.tags ?? [];
    expect(names(tags, "def").sort()).toEqual(["Card", "List", "VERSION"]);
    expect(names(tags, "ref").sort()).toEqual(["Badge", "Card", "Panel"]);
    expect(names(tags, "ref")).not.toContain("div");
  });

  test("TypeScript: `new` of a class (plain and qualified) is a reference on its own, with no type annotation", async () => {
    const ft = await extractor.extract(
      "n.ts",
      "const a = new Parser();\nconst b = new lib.Lexer(a);\nexport default b;\n",
    );
    expect(ft?.tags.filter((t) => t.kind === "ref").map((t) => [t.name, t.line])).toEqual([
      ["Parser", 0],
      ["Lexer", 1],
    ]);
  });

  test("a definition is not also counted as a reference to itself", async () => {
    const tags = await tagsOf("src/store.ts");
    const defLines = new Set(tags.filter((t) => t.kind === "def" && t.name === "Todo").map((t) => t.line));
    expect(tags.filter((t) => t.kind === "ref" && t.name === "Todo" && defLines.has(t.line))).toEqual([]);
  });

  test("trees with syntax errors still yield the tags around the error", async () => {
    const ft = await extractor.extract(
      "broken.ts",
      "export function good() { return 1; }\nclass {{{ oops\nfunction alsoGood() {}\n",
    );
    expect(names(ft?.tags ?? [], "def")).toContain("good");
  });

  test("unknown languages give null", async () => {
    expect(await extractor.extract("notes.md", "# hi")).toBeNull();
  });

  test("contexts hold the enclosing scope header and the rows needed to render it", async () => {
    const ft = await extractor.extract("py/inventory.py", await readFile(path.join(SAMPLE, "py/inventory.py"), "utf8"));
    const honk = ft?.tags.find((t) => t.kind === "def" && t.name === "honk");
    const car = ft?.tags.find((t) => t.kind === "def" && t.name === "Car");
    expect(honk && car).toBeTruthy();
    expect(ft?.contexts[honk!.line]).toEqual(expect.arrayContaining([car!.line, honk!.line]));
    expect(ft?.rows[car!.line]).toBe("class Car:");
  });
});

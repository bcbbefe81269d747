import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

// One route per request. The layering table lives once, in eslint.config.js (`MAY_IMPORT`, which the lint
// rule enforces); docs/architecture.md prints it. This test holds the three together: the doc's table is the lint
// table, the table has no cycle, and the real import graph of src/ (type-only and dynamic imports included) keeps to
// it, with no file importing itself back through others.

/** The modules of src/github/ other folders may import: the gateway, installation calls and shared leaves. */
const GITHUB_PUBLIC = [
  "repo-github.ts",
  "installations.ts",
  "github-client.ts",
  "github-error.ts",
  "markers.ts",
  "cap-markdown.ts",
  "json-field.ts",
  "token-octokit.ts",
  "http-fetch.ts",
  "guard-github-writes.ts",
  "read-ahead.ts",
];

/** Imports of a per-topic module not yet moved onto the gateway (`file → module`): none are left, and none may come back. */
const GITHUB_STILL_DIRECT: string[] = [];

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SRC = path.join(ROOT, "src");

/** Which folders each folder may import; "*" is everything (the CLI). */
type Table = Map<string, "*" | string[]>;
/** An import of src/, as paths relative to the repository (`src/run/run-job.ts`). */
interface ImportEdge {
  from: string;
  to: string;
}

/** `MAY_IMPORT`, read from eslint.config.js and checked for shape. */
async function lintTable(): Promise<Table> {
  const mod: Record<string, unknown> = await import(pathToFileURL(path.join(ROOT, "eslint.config.js")).href);
  const table: Table = new Map();
  for (const [folder, allowed] of Object.entries(objectOf(mod.MAY_IMPORT, "MAY_IMPORT")))
    table.set(folder, allowed === "*" ? "*" : stringsOf(allowed, `MAY_IMPORT.${folder}`));
  return table;
}

function objectOf(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null) throw new Error(`eslint.config.js exports no object ${name}`);
  return { ...value };
}

function stringsOf(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === "string"))
    throw new Error(`${name} in eslint.config.js is not "*" or a list of folder names`);
  return value;
}

/**
 * The layout table of docs/architecture.md (`| folder | what | may import |`): folder `cli/` → its list, where the
 * last column is folder names separated by commas, "everything" or "nothing".
 */
function parseLayoutTable(markdown: string): Table {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Layout"));
  if (!section) throw new Error("docs/architecture.md has no '## Layout' section");
  const table: Table = new Map();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    // | `folder/` | what | may import |  →  ["", "`folder/`", what, may, ""]
    const folder = /^`([a-z]+)\/`$/.exec(cells[1] ?? "")?.[1];
    if (!folder || cells.length !== 5) continue;
    const may = cells[3] ?? "";
    table.set(
      folder,
      may === "everything"
        ? "*"
        : may === "nothing"
          ? []
          : may.split(",").map((name) => name.trim().replace(/^`|\/?`$/g, "")),
    );
  }
  return table;
}

/** A cycle of the folder table, as `a → b → a`, or null when the table is a DAG. */
function findTableCycle(table: Table): string | null {
  const edges = new Map([...table].map(([f, allowed]) => [f, allowed === "*" ? [] : allowed]));
  // "*" imports everything, so it must be imported by nothing: checked as its own rule below.
  return findCycle(edges)?.join(" → ") ?? null;
}

/** One cycle of a directed graph (the path, first node repeated at the end), or null. */
function findCycle(edges: Map<string, string[]>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === "done") return null;
    if (state.get(node) === "open") return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

/** Every relative import of every file of src/: import, import type, export … from, import() and import("…").T. */
function importGraph(): ImportEdge[] {
  const files = listTs(SRC);
  return files.flatMap((file) => importsOf(file, readFileSync(file, "utf8")));
}

function listTs(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? listTs(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Every module specifier of one source file: import, import type, export … from, import() and import("…").T. */
function specifiersOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) specifiers.push(arg.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) specifiers.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** The relative imports of one source file, resolved to `src/…/x.ts` paths (exported for the checker's own test). */
function importsOf(file: string, text: string): ImportEdge[] {
  const from = path.relative(ROOT, file);
  return specifiersOf(file, text)
    .filter((s) => s.startsWith("./") || s.startsWith("../"))
    .map((s) => ({ from, to: path.relative(ROOT, path.resolve(path.dirname(file), s)).replace(/\.js$/, ".ts") }));
}

/** The folder of a src/ path (`src/run/run-job.ts` → "run"), or null for a root file of src/ (a leaf). */
function folderOf(file: string): string | null {
  const parts = file.split(path.sep);
  return parts.length > 2 ? (parts[1] ?? null) : null;
}

/** Every import the table refuses, named file → file with the rule it breaks. */
function layeringViolations(edges: ImportEdge[], table: Table): string[] {
  const problems: string[] = [];
  for (const { from, to } of edges) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === b || b === null) continue; // within a folder, or a root leaf (result.ts, format-number.ts)
    if (a === null) {
      problems.push(`${from} → ${to}: a root file of src/ is a leaf and imports no folder`);
      continue;
    }
    const allowed = table.get(a);
    if (allowed === undefined) {
      problems.push(`${from} → ${to}: src/${a}/ has no row in MAY_IMPORT (eslint.config.js) and docs/architecture.md`);
      continue;
    }
    if (!table.has(b)) {
      problems.push(`${from} → ${to}: src/${b}/ has no row in MAY_IMPORT (eslint.config.js) and docs/architecture.md`);
      continue;
    }
    if (allowed === "*" || allowed.includes(b)) continue;
    problems.push(
      `${from} → ${to}: src/${a}/ may import only ${allowed.join(", ") || "no other folder"}, not ${b}/ ` +
        "(MAY_IMPORT in eslint.config.js, docs/architecture.md#layout)",
    );
  }
  return problems;
}

/** Import cycles between files (each as `a.ts → b.ts → a.ts`). */
function fileCycles(edges: ImportEdge[]): string[] {
  const graph = new Map<string, string[]>();
  for (const { from, to } of edges) graph.set(from, [...(graph.get(from) ?? []), to]);
  const cycles: string[] = [];
  // Remove one edge of each cycle found and look again, so every independent cycle is named.
  for (let found = findCycle(graph); found && cycles.length < 20; found = findCycle(graph)) {
    cycles.push(found.join(" → "));
    const [a, b] = found;
    if (a === undefined || b === undefined) break;
    graph.set(
      a,
      (graph.get(a) ?? []).filter((t) => t !== b),
    );
  }
  return cycles;
}

describe("layering (docs/architecture.md#layout, MAY_IMPORT in eslint.config.js)", () => {
  let table: Table;
  let edges: ImportEdge[];

  beforeAll(async () => {
    table = await lintTable();
    edges = importGraph();
  });

  it("the doc prints the lint table, folder by folder", () => {
    const doc = parseLayoutTable(readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8"));
    const rows = (t: Table) => Object.fromEntries([...t].map(([f, a]) => [f, a === "*" ? "*" : [...a].sort()]));
    expect(rows(doc)).toEqual(rows(table));
  });

  it("every folder of src/ has a row", () => {
    const folders = readdirSync(SRC).filter((n) => statSync(path.join(SRC, n)).isDirectory());
    expect(folders.filter((f) => !table.has(f))).toEqual([]);
  });

  it("the table is a DAG, and nothing may import the folder that may import everything", () => {
    expect(findTableCycle(table)).toBeNull();
    const top = [...table].filter(([, a]) => a === "*").map(([f]) => f);
    const importingTop = [...table].filter(([, a]) => a !== "*" && a.some((f) => top.includes(f)));
    expect(importingTop.map(([f]) => f)).toEqual([]);
  });

  it("every import between folders of src/ is one the table allows", () => {
    expect(layeringViolations(edges, table)).toEqual([]);
  });

  // Outside src/github/, GitHub is reached through the gateway bound to a repository (or the installation calls);
  // the per-topic modules are its implementation. docs/architecture.md#github-gateway lists the same modules.
  it("outside src/github/, only the gateway and github/'s shared modules are imported", () => {
    const doc = readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8");
    const listed = /Other folders import only ([\s\S]+?)\. `test\/architecture/.exec(doc)?.[1] ?? "";
    expect([...listed.matchAll(/`([a-z-]+\.ts)`/g)].map((m) => m[1]).sort()).toEqual([...GITHUB_PUBLIC].sort());
    const direct = edges
      .filter((e) => !e.from.startsWith(`src${path.sep}github${path.sep}`))
      .filter((e) => e.to.startsWith(`src${path.sep}github${path.sep}`))
      .map((e) => `${e.from} → ${path.basename(e.to)}`)
      .filter((e) => !GITHUB_PUBLIC.some((m) => e.endsWith(`→ ${m}`)));
    // Each exception must still be real, so the list only shrinks.
    expect(direct.sort()).toEqual([...GITHUB_STILL_DIRECT].sort());
  });

  it("no file imports itself back through others", () => {
    expect(fileCycles(edges)).toEqual([]);
  });

  // The testkit stands beside src/ and is built on its own (tsconfig.testkit.json): it cannot reach into the app, and
  // the app reaches it only from the demo command.
  it("the testkit imports nothing of src/, and only the demo command imports the testkit", () => {
    const TESTKIT = path.join(ROOT, "testkit");
    // The builders (testkit/builders/, test-only and not built) type what they build with the app's types.
    const BUILDERS = path.join(TESTKIT, "builders") + path.sep;
    const outward = listTs(TESTKIT)
      .filter((file) => !file.startsWith(BUILDERS))
      .flatMap((file) =>
        specifiersOf(file, readFileSync(file, "utf8"))
          .filter((s) => s.startsWith(".") && !path.resolve(path.dirname(file), s).startsWith(TESTKIT + path.sep))
          .map((s) => `${path.relative(ROOT, file)} → ${s}`),
      );
    expect(outward).toEqual([]);
    const importers = listTs(SRC).filter((file) =>
      specifiersOf(file, readFileSync(file, "utf8")).some((s) => s.startsWith("#testkit/") || s.includes("testkit/")),
    );
    expect(importers.map((f) => path.relative(ROOT, f))).toEqual(["src/cli/demo-command.ts"]);
  });

  // The checker itself: an upward import, a type-only one and a dynamic one are each caught, and so is a cycle.
  describe("the checker", () => {
    const small: Table = new Map<string, "*" | string[]>([
      ["run", ["github"]],
      ["github", []],
    ]);
    const at = (rel: string) => path.join(ROOT, rel);

    it.each([
      ['import { x } from "../run/run-job.js";'],
      ['import type { X } from "../run/run-job.js";'],
      ['export { x } from "../run/run-job.js";'],
      ['const m = await import("../run/run-job.js");'],
      ['let y: import("../run/run-job.js").X;'],
    ])("refuses github → run written as %s, naming the files and the rule", (line) => {
      const found = layeringViolations(importsOf(at("src/github/a.ts"), line), small);
      expect(found).toEqual([
        "src/github/a.ts → src/run/run-job.ts: src/github/ may import only no other folder, not run/ " +
          "(MAY_IMPORT in eslint.config.js, docs/architecture.md#layout)",
      ]);
    });

    it("allows a downward import, a root leaf and an import within the folder", () => {
      const text = 'import "../github/b.js";\nimport "../result.js";\nimport "./c.js";';
      expect(layeringViolations(importsOf(at("src/run/a.ts"), text), small)).toEqual([]);
    });

    it("finds a cycle in the table and between files", () => {
      expect(
        findTableCycle(
          new Map([
            ["a", ["b"]],
            ["b", ["a"]],
          ]),
        ),
      ).toBe("a → b → a");
      const cyclic = [
        { from: "src/run/a.ts", to: "src/run/b.ts" },
        { from: "src/run/b.ts", to: "src/run/a.ts" },
      ];
      expect(fileCycles(cyclic)).toEqual(["src/run/a.ts → src/run/b.ts → src/run/a.ts"]);
    });

    it("reads the doc's table: lists, everything and nothing", () => {
      const md =
        "## Layout\n\n| folder | what | may import |\n| --- | --- | --- |\n" +
        "| `cli/` | the CLI | everything |\n| `run/` | phases | github, config |\n| `edits/` | pure | nothing |\n\n## Jobs\n";
      expect(Object.fromEntries(parseLayoutTable(md))).toEqual({ cli: "*", run: ["github", "config"], edits: [] });
    });
  });
});

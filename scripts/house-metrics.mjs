#!/usr/bin/env node
// Measures what docs/architecture.md promises about the code's shape, for a before/after comparison:
// source files, the longest functions, type casts, non-null assertions, explicit `any`, source files no test imports,
// import cycles between files and README lines. `node scripts/house-metrics.mjs [--json]` from the repository root.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");

function listTs(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "fixtures" || name === "node_modules") continue;
    if (statSync(path).isDirectory()) out.push(...listTs(path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function parse(path) {
  return ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.ES2022, true);
}

/** Relative imports of one file, resolved to absolute .ts paths. */
function importsOf(file) {
  const out = [];
  const visit = (node) => {
    const spec =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier
        ? node.moduleSpecifier
        : ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword
          ? node.arguments[0]
          : undefined;
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith(".")) {
      const typeOnly = ts.isImportDeclaration(node) && node.importClause?.isTypeOnly;
      out.push({ path: resolve(dirname(file.fileName), spec.text.replace(/\.js$/, ".ts")), typeOnly: !!typeOnly });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

function functionName(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

export function measure() {
  const srcFiles = listTs(join(root, "src"));
  const testFiles = listTs(join(root, "test"));
  const functions = [];
  let casts = 0;
  let nonNull = 0;
  let anys = 0;
  let lines = 0;
  const graph = new Map();
  for (const path of srcFiles) {
    const file = parse(path);
    const rel = relative(root, path);
    lines += file.getLineAndCharacterOfPosition(file.end).line + 1;
    graph.set(path, importsOf(file));
    const visit = (node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
        const end = file.getLineAndCharacterOfPosition(node.end).line;
        functions.push({ name: functionName(node), at: `${rel}:${start + 1}`, lines: end - start + 1 });
      }
      if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
        const isConst = ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(file) === "const";
        if (!isConst) casts++;
      }
      if (ts.isNonNullExpression(node)) nonNull++;
      if (node.kind === ts.SyntaxKind.AnyKeyword) anys++;
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  functions.sort((a, b) => b.lines - a.lines);

  const tested = new Set();
  for (const path of testFiles) for (const i of importsOf(parse(path))) tested.add(i.path);
  const untested = srcFiles.filter((p) => !tested.has(p)).map((p) => relative(root, p));

  const cycles = stronglyConnected(graph)
    .filter((c) => c.length > 1)
    .map((c) => c.map((p) => relative(root, p)).sort());

  const readme = readFileSync(join(root, "README.md"), "utf8").split("\n").length;
  return {
    srcFiles: srcFiles.length,
    srcLines: lines,
    longest: functions.slice(0, 5),
    allOver100: functions.filter((f) => f.lines > 100),
    over100: functions.filter((f) => f.lines > 100).length,
    casts,
    nonNull,
    explicitAny: anys,
    untested: untested.length,
    untestedFiles: untested,
    cycles,
    readme,
  };
}

/** Tarjan's strongly connected components over the import graph (type-only imports count: they tie the concepts too). */
function stronglyConnected(graph) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const out = [];
  const connect = (v) => {
    meta.set(v, { index, low: index, on: true });
    index++;
    stack.push(v);
    for (const { path: w } of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!meta.has(w)) {
        connect(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).on) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).on = false;
        component.push(w);
      } while (w !== v);
      out.push(component);
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) connect(v);
  return out;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const m = measure();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(m, null, 2));
  } else {
    console.log(`source files          ${m.srcFiles} (${m.srcLines} lines)`);
    console.log(
      `longest functions     ${m.longest.map((f) => `${f.lines} ${f.name} (${f.at})`).join("\n                      ")}`,
    );
    console.log(`functions > 100 lines ${m.over100}`);
    console.log(`casts (as / <T>)      ${m.casts}`);
    console.log(`non-null assertions   ${m.nonNull}`);
    console.log(`explicit any          ${m.explicitAny}`);
    console.log(`untested src files    ${m.untested}`);
    console.log(
      `import cycles         ${m.cycles.length}${m.cycles.map((c) => `\n                      ${c.join(" ↔ ")}`).join("")}`,
    );
    console.log(`README lines          ${m.readme}`);
  }
}

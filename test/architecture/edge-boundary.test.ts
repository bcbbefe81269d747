import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

// "No payload field is read after the edge": every webhook and Action event is parsed once, in src/edge/, into a
// typed BotEvent. This test reads the syntax of every file of src/ outside the edge and refuses what would read a
// raw payload there: GitHub's payload types or examples, the edge's payload reader, or a `.payload` that is not
// handed straight to the edge's parsers — and the parsers are called only where events enter.
const SRC = path.resolve("src");
const EDGE = path.join(SRC, "edge") + path.sep;

/** Packages whose types or values are raw webhook payloads: only the edge may build on them. */
const PAYLOAD_PACKAGES = ["@octokit/webhooks-types", "@octokit/webhooks-examples", "@octokit/webhooks"];
/** The edge's own reading of untyped payloads (field by field): internal to src/edge/. */
const EDGE_INTERNALS = ["payload-reader", "read-event-parts"];
/** The edge's parsers, each called only where events enter (listed below). */
const PARSERS = new Set(["parseWebhook", "parseActionEvent"]);
/** Where events enter: the App's intake, the triage job of a delivery stored whole by an older version, the Action. */
const ENTRIES = ["src/app/create-app.ts", "src/app/triage-handler.ts", "src/action/run-action.ts"];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Whether `node` is (through parentheses and `a ? b : c`) an argument of a call to one of the edge's parsers. */
function handedToParser(node: ts.Node): boolean {
  let at = node;
  while (ts.isParenthesizedExpression(at.parent) || ts.isConditionalExpression(at.parent)) at = at.parent;
  const call = at.parent;
  return (
    ts.isCallExpression(call) &&
    call.arguments.some((a) => a === at) &&
    ts.isIdentifier(call.expression) &&
    PARSERS.has(call.expression.text)
  );
}

/** What one file of src/ outside the edge does that reads a raw payload, as `file:line what`. */
export function edgeViolations(file: string, text: string): string[] {
  const rel = path.relative(process.cwd(), file).split(path.sep).join("/");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const say = (node: ts.Node, what: string) =>
    found.push(`${rel}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  const visit = (node: ts.Node): void => {
    const specifier =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
        ? node.moduleSpecifier.text
        : ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)
          ? node.argument.literal.text
          : null;
    if (specifier !== null) {
      if (PAYLOAD_PACKAGES.includes(specifier)) say(node, `imports ${specifier}`);
      if (EDGE_INTERNALS.some((m) => specifier.endsWith(`/edge/${m}.js`))) say(node, `imports the edge's ${specifier}`);
    }
    // `delete x.payload` drops one unread (the log's error serializer does, for errors that carry a whole event).
    if (
      ts.isPropertyAccessExpression(node) &&
      node.name.text === "payload" &&
      !handedToParser(node) &&
      !ts.isDeleteExpression(node.parent)
    )
      say(node, `reads ${node.getText(source)}`);
    if (
      ts.isElementAccessExpression(node) &&
      ts.isStringLiteralLike(node.argumentExpression) &&
      node.argumentExpression.text === "payload"
    )
      say(node, `reads ${node.getText(source)}`);
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      PARSERS.has(node.expression.text) &&
      !ENTRIES.includes(rel)
    )
      say(node, `calls ${node.expression.text} where no event enters`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("the edge: no payload field is read after it", () => {
  it("no file of src/ outside src/edge/ reads a raw payload", () => {
    const outside = sources(SRC).filter((f) => !f.startsWith(EDGE));
    expect(outside.length).toBeGreaterThan(100);
    expect(outside.flatMap((f) => edgeViolations(f, readFileSync(f, "utf8")))).toEqual([]);
  });

  it("the events enter through the edge's parsers where the list says", () => {
    for (const entry of ENTRIES) expect(readFileSync(entry, "utf8")).toMatch(/\bparse(Webhook|ActionEvent)\(/);
  });

  it("would catch a new read: a payload field, payload types, the edge's reader, a parse after the edge", () => {
    const probe = path.join(SRC, "triage", "probe.ts");
    const found = edgeViolations(
      probe,
      [
        'import type { IssueCommentCreatedEvent } from "@octokit/webhooks-types";',
        'import { readPayload } from "../edge/payload-reader.js";',
        'import { parseWebhook } from "../edge/parse-webhook.js";',
        "export const body = (context: { payload: IssueCommentCreatedEvent }) => context.payload.comment.body;",
        'export const raw = (job: Record<string, unknown>) => job["payload"];',
        "export const again = (e: { name: string; payload: unknown }) => parseWebhook(e.name, e.payload, 'd');",
        "export const reader = (p: unknown) => readPayload(p);",
      ].join("\n"),
    );
    expect(found).toEqual([
      "src/triage/probe.ts:1 imports @octokit/webhooks-types",
      `src/triage/probe.ts:2 imports the edge's ../edge/payload-reader.js`,
      "src/triage/probe.ts:4 reads context.payload",
      'src/triage/probe.ts:5 reads job["payload"]',
      "src/triage/probe.ts:6 calls parseWebhook where no event enters",
    ]);
  });
});

import { parse } from "yaml";
import { interpolate, UNKNOWN, type ExprContext, type ExprValue } from "./evaluate-expression.js";

/** A YAML mapping as the workflow reader sees it: keys of every name, values still to be checked. */
export type Obj = Record<string, unknown>;

/** The value as a mapping, or an empty one when it is not (a workflow may hold anything anywhere). */
export const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
/** A workflow's text as inline code in an exclusion reason: one line, at most 120 characters, no backticks. */
export const code = (s: string) => `\`${s.replace(/`/g, "'").replace(/\s+/g, " ").slice(0, 120)}\``;

/** Parse a YAML file the repository wrote; null with the reason when it is not a YAML mapping. */
export function parseYamlMapping(text: string): { ok: true; doc: Obj } | { ok: false; why: string } {
  try {
    const doc: unknown = parse(text, { maxAliasCount: 100, uniqueKeys: false });
    return doc && typeof doc === "object" && !Array.isArray(doc)
      ? { ok: true, doc: doc as Obj }
      : { ok: false, why: "is not a YAML mapping" };
  } catch (error) {
    return {
      ok: false,
      why: `is not valid YAML (${(error instanceof Error ? error.message : String(error)).split("\n")[0]})`,
    };
  }
}

/** The events a workflow runs on (`on:` as a word, a list or a mapping). */
export function workflowEvents(doc: Obj): string[] {
  const on = doc.on ?? doc["true"];
  if (typeof on === "string") return [on];
  if (Array.isArray(on)) return on.map(String);
  return Object.keys(obj(on));
}

/** Literal values of an `env:` mapping, expressions resolved where they can be (a secret stays unknown). */
export function envOf(raw: unknown, ctx: ExprContext): Record<string, ExprValue> {
  const out: Record<string, ExprValue> = {};
  for (const [k, v] of Object.entries(obj(raw))) {
    const text = interpolate(String(v ?? ""), ctx);
    out[k] = text.ok ? text.text : UNKNOWN;
  }
  return out;
}

/** Literal values of a `with:` mapping; an input only GitHub Actions can resolve is left out. */
export function inputsOf(raw: unknown, ctx: ExprContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(raw))) {
    const text = interpolate(String(v ?? ""), ctx);
    if (text.ok) out[k] = text.text;
  }
  return out;
}

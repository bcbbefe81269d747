import { exprText, interpolate, type ExprContext, type ExprValue } from "./evaluate-expression.js";

type Combo = Record<string, ExprValue>;
const MAX_COMBOS = 256;

const sameValue = (a: ExprValue | undefined, b: ExprValue | undefined) => JSON.stringify(a) === JSON.stringify(b);
const matches = (combo: Combo, entry: Combo) => Object.entries(entry).every(([k, v]) => sameValue(combo[k], v));
const unixLike = (combo: Combo) =>
  !Object.values(combo).some((v) => /windows|macos|darwin|\bwin\d*\b/i.test(exprText(v) ?? ""));

/**
 * One combination of a job's `strategy.matrix`, as GitHub would expand it: the product of its lists, minus `exclude`,
 * with `include` entries merged into the combinations they match (or added). The first combination that runs on Linux
 * is taken (the bot's commands run there), else the first. A matrix built by an expression is refused with the reason.
 */
export function pickMatrix(
  matrix: unknown,
  ctx: ExprContext,
): { ok: true; values: Combo; of: number } | { ok: false; why: string } {
  if (matrix === undefined || matrix === null) return { ok: true, values: {}, of: 1 };
  if (typeof matrix === "string")
    return { ok: false, why: `its matrix is the expression \`${matrix}\`, which only GitHub Actions can expand` };
  if (typeof matrix !== "object" || Array.isArray(matrix)) return { ok: false, why: "its matrix is not a mapping" };
  const m = matrix as Record<string, unknown>;
  const axes: [string, ExprValue[]][] = [];
  for (const [key, raw] of Object.entries(m)) {
    if (key === "include" || key === "exclude") continue;
    const list = typeof raw === "string" ? resolveList(raw, ctx) : raw;
    if (!Array.isArray(list)) return { ok: false, why: `its matrix value \`${key}\` is not a list the bot can expand` };
    if (list.length === 0) return { ok: false, why: `its matrix value \`${key}\` is empty` };
    axes.push([key, list as ExprValue[]]);
  }
  const entries = (v: unknown): Combo[] =>
    Array.isArray(v) ? v.filter((e): e is Combo => !!e && typeof e === "object" && !Array.isArray(e)) : [];
  let combos: Combo[] = axes.length ? [{}] : [];
  for (const [key, values] of axes) {
    combos = combos.flatMap((c) => values.map((v): Combo => ({ ...c, [key]: v }))).slice(0, MAX_COMBOS);
  }
  const excludes = entries(m.exclude);
  combos = combos.filter((c) => !excludes.some((e) => matches(c, e)));
  const original = new Set(axes.map(([k]) => k));
  const base = combos.length;
  for (const inc of entries(m.include)) {
    const fixed = Object.fromEntries(Object.entries(inc).filter(([k]) => original.has(k)));
    let merged = false;
    // Only the combinations before the includes are merged into (an include's own row is never widened).
    for (const [i, combo] of combos.slice(0, base).entries()) {
      if (!matches(combo, fixed)) continue;
      // An include never overwrites an original value; its other keys are added to every combination it matches.
      combos[i] = {
        ...combo,
        ...Object.fromEntries(Object.entries(inc).filter(([k]) => !original.has(k) || sameValue(combo[k], inc[k]))),
      };
      merged = true;
    }
    if (!merged) combos.push({ ...inc });
  }
  const [first] = combos;
  if (first === undefined) return { ok: false, why: "its matrix has no combination left after `exclude`" };
  return { ok: true, values: combos.find(unixLike) ?? first, of: combos.length };
}

function resolveList(raw: string, ctx: ExprContext): unknown {
  const text = interpolate(raw, ctx);
  if (!text.ok) return null;
  try {
    return JSON.parse(text.text);
  } catch {
    return null;
  }
}

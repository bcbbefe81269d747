/**
 * GitHub Actions `${{ }}` expressions, evaluated as far as a checkout can know them: literals, operators, `matrix`,
 * `env`, `inputs`, `runner.os` and the functions `format`, `contains`, `startsWith`, `endsWith`, `join`, `toJSON`,
 * `fromJSON`, `success`, `always`. Anything else (`secrets`, `steps`, `needs`, `hashFiles`, …) is {@link UNKNOWN} and
 * makes what depends on it unknown, so a command built from it is never run half-resolved.
 */
export const UNKNOWN: unique symbol = Symbol("unknown");
export type ExprValue = string | number | boolean | null | typeof UNKNOWN | ExprValue[] | { [key: string]: ExprValue };

/** Named contexts (`matrix`, `env`, `inputs`, `runner`, …); a missing context is unknown. */
export type ExprContext = Record<string, ExprValue>;

type Token = { t: "str"; v: string } | { t: "num"; v: number } | { t: "id"; v: string } | { t: "op"; v: string };

function tokenize(src: string): Token[] | null {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      let v = "";
      i++;
      for (;;) {
        if (i >= src.length) return null;
        if (src[i] === "'" && src[i + 1] === "'") {
          v += "'";
          i += 2;
        } else if (src[i] === "'") break;
        else v += src[i++];
      }
      i++;
      out.push({ t: "str", v });
    } else if (/[0-9]/.test(c) || (c === "-" && /[0-9]/.test(src[i + 1] ?? ""))) {
      // c (or the digit after a minus) starts a number, so the pattern matches; below, c starts an identifier.
      const m = /^-?(0x[0-9a-f]+|[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?)/i.exec(src.slice(i))!;
      out.push({ t: "num", v: Number(m[0]) });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(src.slice(i))!;
      out.push({ t: "id", v: m[0] });
      i += m[0].length;
    } else {
      const two = src.slice(i, i + 2);
      const op = ["==", "!=", "<=", ">=", "&&", "||"].includes(two) ? two : "()[],.!<>*".includes(c) ? c : null;
      if (op === null) return null;
      out.push({ t: "op", v: op });
      i += op.length;
    }
  }
  return out;
}

const truthy = (v: ExprValue): boolean =>
  v !== null && v !== false && v !== 0 && v !== "" && !(typeof v === "number" && Number.isNaN(v));

/** The text of a value, as GitHub puts it into a string; null for unknown. */
export function exprText(v: ExprValue): string | null {
  if (v === UNKNOWN) return null;
  if (v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return containsUnknown(v) ? null : JSON.stringify(v);
}

function containsUnknown(v: ExprValue): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(containsUnknown);
  if (v && typeof v === "object") return Object.values(v).some(containsUnknown);
  return false;
}

function compare(a: ExprValue, b: ExprValue, op: string): ExprValue {
  if (a === UNKNOWN || b === UNKNOWN) return UNKNOWN;
  const norm = (x: ExprValue) =>
    typeof x === "string" ? x.toLowerCase() : typeof x === "boolean" ? Number(x) : x === null ? 0 : x;
  let l = norm(a);
  let r = norm(b);
  if (typeof l !== typeof r) {
    l = Number(l);
    r = Number(r);
  }
  switch (op) {
    case "==":
      return l === r;
    case "!=":
      return l !== r;
    case "<":
      return (l as number) < (r as number);
    case ">":
      return (l as number) > (r as number);
    case "<=":
      return (l as number) <= (r as number);
    default:
      return (l as number) >= (r as number);
  }
}

function callFunction(name: string, args: ExprValue[]): ExprValue {
  const lower = name.toLowerCase();
  if (lower === "success" || lower === "always") return true;
  if (lower === "failure" || lower === "cancelled") return false;
  if (args.some((a) => a === UNKNOWN)) return UNKNOWN;
  const text = (v: ExprValue) => exprText(v) ?? "";
  switch (lower) {
    case "format": {
      const [fmt, ...rest] = args;
      return text(fmt ?? "").replace(/\{\{|\}\}|\{(\d+)\}/g, (m, n: string | undefined) =>
        m === "{{" ? "{" : m === "}}" ? "}" : text(rest[Number(n)] ?? ""),
      );
    }
    case "contains": {
      const [hay, needle] = args;
      if (Array.isArray(hay)) return hay.some((x) => compare(x, needle ?? null, "==") === true);
      return text(hay ?? "")
        .toLowerCase()
        .includes(text(needle ?? "").toLowerCase());
    }
    case "startswith":
      return text(args[0] ?? "")
        .toLowerCase()
        .startsWith(text(args[1] ?? "").toLowerCase());
    case "endswith":
      return text(args[0] ?? "")
        .toLowerCase()
        .endsWith(text(args[1] ?? "").toLowerCase());
    case "join": {
      const [list, sep] = args;
      return Array.isArray(list) ? list.map(text).join(sep === undefined ? "," : text(sep)) : text(list ?? "");
    }
    case "tojson":
      return JSON.stringify(args[0] ?? null, null, 2);
    case "fromjson":
      try {
        return JSON.parse(text(args[0] ?? "")) as ExprValue;
      } catch {
        return UNKNOWN;
      }
    default:
      return UNKNOWN;
  }
}

/** Evaluate one expression (the text between `${{` and `}}`); a syntax it does not know is {@link UNKNOWN}. */
export function evaluateExpression(src: string, ctx: ExprContext): ExprValue {
  const tokens = tokenize(src);
  if (!tokens) return UNKNOWN;
  const parser = new ExpressionParser(src, tokens, ctx);
  try {
    const value = parser.or();
    return parser.atEnd() ? value : UNKNOWN;
  } catch {
    return UNKNOWN;
  }
}

/**
 * A recursive-descent evaluator over one expression's tokens, lowest precedence first: `||`, `&&`, comparisons,
 * `!`, then primaries (literals, parentheses, calls, context names with `.name`/`[key]` accessors). Throws a
 * SyntaxError on a malformed expression (the caller's {@link UNKNOWN}).
 */
class ExpressionParser {
  private pos = 0;

  constructor(
    private readonly src: string,
    private readonly tokens: Token[],
    private readonly ctx: ExprContext,
  ) {}

  atEnd(): boolean {
    return this.pos === this.tokens.length;
  }

  or(): ExprValue {
    let left = this.and();
    while (this.takeOp("||")) {
      const right = this.and();
      left = left === UNKNOWN ? UNKNOWN : truthy(left) ? left : right;
    }
    return left;
  }

  private and(): ExprValue {
    let left = this.comparison();
    while (this.takeOp("&&")) {
      const right = this.comparison();
      left = left === UNKNOWN ? (right === UNKNOWN || truthy(right) ? UNKNOWN : right) : truthy(left) ? right : left;
    }
    return left;
  }

  private comparison(): ExprValue {
    const left = this.unary();
    const tok = this.tokens[this.pos];
    if (tok?.t === "op" && ["==", "!=", "<", ">", "<=", ">="].includes(tok.v)) {
      this.pos++;
      return compare(left, this.unary(), tok.v);
    }
    return left;
  }

  private unary(): ExprValue {
    if (this.takeOp("!")) {
      const v = this.unary();
      return v === UNKNOWN ? UNKNOWN : !truthy(v);
    }
    return this.primary();
  }

  private primary(): ExprValue {
    const tok = this.next();
    if (tok.t === "str" || tok.t === "num") return tok.v;
    if (tok.t === "op" && tok.v === "(") {
      const v = this.or();
      this.expectOp(")");
      return v;
    }
    if (tok.t !== "id") return this.fail();
    const word = tok.v;
    if (this.takeOp("(")) return callFunction(word, this.callArgs());
    if (word === "true") return true;
    if (word === "false") return false;
    if (word === "null") return null;
    return this.accessors(word in this.ctx ? this.ctx[word]! : UNKNOWN);
  }

  /** A call's arguments, after its `(`, through its `)`. */
  private callArgs(): ExprValue[] {
    const args: ExprValue[] = [];
    if (!this.isOp(")")) {
      do args.push(this.or());
      while (this.takeOp(","));
    }
    this.expectOp(")");
    return args;
  }

  /** `value` read through the `.name`, `.*` and `[key]` accessors that follow it. */
  private accessors(value: ExprValue): ExprValue {
    for (;;) {
      if (this.takeOp(".")) {
        const next = this.next();
        if (next.t === "op" && next.v === "*") {
          value = UNKNOWN;
          continue;
        }
        if (next.t !== "id") return this.fail();
        value = member(value, next.v);
      } else if (this.takeOp("[")) {
        const key = this.or();
        this.expectOp("]");
        value = key === UNKNOWN ? UNKNOWN : member(value, exprText(key) ?? "");
      } else return value;
    }
  }

  private next(): Token {
    return this.tokens[this.pos++] ?? this.fail();
  }

  private isOp(v: string): boolean {
    const tok = this.tokens[this.pos];
    return tok?.t === "op" && tok.v === v;
  }

  private takeOp(v: string): boolean {
    if (!this.isOp(v)) return false;
    this.pos++;
    return true;
  }

  private expectOp(v: string): void {
    if (!this.takeOp(v)) this.fail();
  }

  private fail(): never {
    throw new SyntaxError(this.src);
  }
}

function member(value: ExprValue, key: string): ExprValue {
  if (value === UNKNOWN || value === null || typeof value !== "object") return value === UNKNOWN ? UNKNOWN : null;
  if (Array.isArray(value)) return /^\d+$/.test(key) ? (value[Number(key)] ?? null) : null;
  // Property names are case-insensitive in GitHub's expressions.
  const found = Object.entries(value).find(([k]) => k.toLowerCase() === key.toLowerCase());
  return found === undefined ? null : found[1];
}

/** Every `${{ … }}` in a text, in order. */
export function expressionsIn(text: string): string[] {
  return [...text.matchAll(/\$\{\{([\s\S]*?)\}\}/g)].map((m) => m[1]!.trim());
}

/** A text with its expressions replaced by their values; `unresolved` is the first that could not be. */
export function interpolate(
  text: string,
  ctx: ExprContext,
): { ok: true; text: string } | { ok: false; unresolved: string } {
  let unresolved: string | null = null;
  const out = text.replace(/\$\{\{([\s\S]*?)\}\}/g, (whole, inner: string) => {
    const v = exprText(evaluateExpression(inner.trim(), ctx));
    if (v === null) unresolved ??= whole;
    return v ?? whole;
  });
  return unresolved === null ? { ok: true, text: out } : { ok: false, unresolved };
}

/** Whether a step's condition is known to be false here (unknown conditions count as true: the step may run). */
export function knownFalse(condition: unknown, ctx: ExprContext): boolean {
  if (condition === undefined || condition === null) return false;
  if (typeof condition === "boolean") return !condition;
  const text = String(condition).trim();
  const inner = /^\$\{\{([\s\S]*)\}\}$/.exec(text)?.[1] ?? text;
  const v = evaluateExpression(inner, ctx);
  return v !== UNKNOWN && !truthy(v);
}

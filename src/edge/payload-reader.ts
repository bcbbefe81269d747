/**
 * Reading a payload that is not yet trusted to have GitHub's shape: each read names the field it wanted, and a
 * field missing or of the wrong type stops the parse with that name (a {@link MalformedPayload}). Only the edge's
 * parsers use it; what they return is typed.
 */
export class MalformedPayload extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at a dotted `path` (`repository.owner.login`); undefined where a step is missing. */
function at(payload: unknown, path: string): unknown {
  let value = payload;
  for (const key of path.split(".")) {
    if (!isObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

function refuse(path: string, wanted: string, got: unknown): never {
  const seen = got === undefined ? "missing" : got === null ? "null" : Array.isArray(got) ? "a list" : typeof got;
  throw new MalformedPayload(`${path} should be ${wanted}, but is ${seen}`);
}

export interface PayloadReader {
  /** A non-empty string. */
  text(path: string): string;
  /** A string, possibly empty. */
  string(path: string): string;
  /** A string, or "" where GitHub sends `null` (an issue without a description). */
  nullableString(path: string): string;
  /** A string, or undefined where the field is absent or `null`. */
  optionalString(path: string): string | undefined;
  /** An integer. */
  int(path: string): number;
  /** An integer, or undefined where the field is absent or `null`. */
  optionalInt(path: string): number | undefined;
  /** Whether an object is there (false where absent or `null`; anything else is refused). */
  has(path: string): boolean;
  /** A list (absent: empty). Each entry is read with its own reader, named `path[i]`. */
  list(path: string): PayloadReader[];
}

export function readPayload(payload: unknown, prefix = ""): PayloadReader {
  const name = (path: string) => (prefix ? `${prefix}.${path}` : path);
  const get = (path: string) => at(payload, path);
  const reader: PayloadReader = {
    text(path) {
      const v = get(path);
      return typeof v === "string" && v !== "" ? v : refuse(name(path), "a non-empty string", v);
    },
    string(path) {
      const v = get(path);
      return typeof v === "string" ? v : refuse(name(path), "a string", v);
    },
    nullableString(path) {
      const v = get(path);
      return v === null ? "" : typeof v === "string" ? v : refuse(name(path), "a string or null", v);
    },
    optionalString(path) {
      const v = get(path);
      return v === null || v === undefined ? undefined : typeof v === "string" ? v : refuse(name(path), "a string", v);
    },
    int(path) {
      const v = get(path);
      return Number.isSafeInteger(v) ? (v as number) : refuse(name(path), "an integer", v);
    },
    optionalInt(path) {
      const v = get(path);
      return v === null || v === undefined ? undefined : reader.int(path);
    },
    has(path) {
      const v = get(path);
      if (v === null || v === undefined) return false;
      return isObject(v) ? true : refuse(name(path), "an object or null", v);
    },
    list(path) {
      const v = get(path);
      if (v === undefined) return [];
      if (!Array.isArray(v)) return refuse(name(path), "a list", v);
      return v.map((entry: unknown, i) => readPayload(entry, `${name(path)}[${i}]`));
    },
  };
  return reader;
}

import { z } from "zod";

/**
 * The zod schemas the environment's variables are read with (env.ts's `VARIABLES` table): pure, they take the raw
 * string (undefined when unset) and give the typed value or a problem. A problem says what a good value looks like and
 * echoes the value only for kinds that cannot hold a secret (numbers, enumerations); URLs, keys and text never.
 */

/** An optional string, passed through. Never echoed (it may be a key, a secret or a private key). */
export const text = () => z.string().optional();

/** On unless the variable is exactly `off` (e.g. `AIDER_BOT_THROTTLE=0`). */
export const onUnless = (off: string) =>
  z
    .string()
    .optional()
    .transform((raw) => raw !== off);

/** Off unless the variable is one of `on`. */
export const offUnless = (...on: string[]) =>
  z
    .string()
    .optional()
    .transform((raw) => raw !== undefined && on.includes(raw));

/** One of a fixed list of words; the message lists them and echoes the value (an enumeration holds no secret). */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, listed = values.join(", ")) =>
  z.string().transform((raw, ctx): T[number] => {
    if ((values as readonly string[]).includes(raw)) return raw as T[number];
    ctx.issues.push({ code: "custom", input: raw, message: `must be ${listed}, got "${raw}"` });
    return z.NEVER;
  });

/** A number with a lower bound; `whole` refuses fractions. Echoes the value (a number holds no secret). */
export const number = (min: number, what: string, whole = false) =>
  z.string().transform((raw, ctx) => {
    const value = Number(raw);
    if ((whole ? Number.isInteger(value) : Number.isFinite(value)) && value >= min) return value;
    ctx.issues.push({ code: "custom", input: raw, message: `must be ${what}, got "${raw}"` });
    return z.NEVER;
  });

/**
 * An http(s) URL. The value is not echoed: a URL may carry credentials (`https://user:key@host`).
 * `example` completes "must be …", e.g. "a URL like https://api.openai.com/v1".
 */
export const httpUrl = (example: string) =>
  z.string().transform((raw, ctx) => {
    const problem = urlProblem(raw);
    if (problem === undefined) return raw;
    ctx.issues.push({ code: "custom", input: "(not shown)", message: `must be ${example}; ${problem}` });
    return z.NEVER;
  });

/** `{"python:3.12":"python:3.12-slim"}`: toolchain (optionally `:version`) → image. Names are echoed (no secret). */
export const imageTable = () =>
  z
    .string()
    .optional()
    .transform((raw, ctx): Record<string, string> => {
      if (raw === undefined) return {};
      let data: unknown;
      try {
        data = JSON.parse(raw);
      } catch {
        data = null;
      }
      if (
        typeof data !== "object" ||
        data === null ||
        Array.isArray(data) ||
        !Object.values(data).every((v) => typeof v === "string" && v.length > 0)
      ) {
        ctx.issues.push({
          code: "custom",
          input: raw,
          message: `must be a JSON object of toolchain to image, like {"python:3.12":"python:3.12-slim","node":"node:20"}.`,
        });
        return z.NEVER;
      }
      return data as Record<string, string>;
    });

export type Prices = Record<string, { input: number; output: number; cacheRead?: number; cacheWrite?: number }>;

/** `a,b , c` → `["a", "b", "c"]`: model names, which hold no secret. */
export const modelList = () =>
  z
    .string()
    .optional()
    .transform((raw) =>
      (raw ?? "")
        .split(",")
        .map((m) => m.trim())
        .filter(Boolean),
    );

/**
 * `{"my-model":{"input":1.5,"output":6}}`, USD per million tokens, optionally with the prompt cache's prices
 * (`"cacheRead":0.15,"cacheWrite":1.875`). Model names are echoed, prices are not secret.
 */
export const prices = () =>
  z
    .string()
    .optional()
    .transform((raw, ctx): Prices => {
      if (raw === undefined) return {};
      let data: unknown;
      try {
        data = JSON.parse(raw);
      } catch {
        // The parser's own message would quote the text; the example says what to write instead.
        ctx.issues.push({
          code: "custom",
          input: raw,
          message: `must be JSON like {"my-model":{"input":1.5,"output":6}} (USD per million tokens).`,
        });
        return z.NEVER;
      }
      const out: Prices = {};
      for (const [model, price] of Object.entries(
        (data ?? {}) as Record<
          string,
          { input?: unknown; output?: unknown; cacheRead?: unknown; cacheWrite?: unknown }
        >,
      )) {
        const optional = (v: unknown) => v === undefined || (typeof v === "number" && v >= 0);
        if (!optional(price?.cacheRead) || !optional(price?.cacheWrite)) {
          ctx.issues.push({
            code: "custom",
            input: raw,
            message: `entry "${model}": "cacheRead" and "cacheWrite" must be non-negative numbers (USD per million tokens) when set.`,
          });
          return z.NEVER;
        }
        if (typeof price?.input !== "number" || typeof price?.output !== "number") {
          ctx.issues.push({
            code: "custom",
            input: raw,
            message: `entry "${model}" needs numeric "input" and "output" prices (USD per million tokens).`,
          });
          return z.NEVER;
        }
        out[model] = {
          input: price.input,
          output: price.output,
          ...(typeof price.cacheRead === "number" ? { cacheRead: price.cacheRead } : {}),
          ...(typeof price.cacheWrite === "number" ? { cacheWrite: price.cacheWrite } : {}),
        };
      }
      return out;
    });

/**
 * The GitHub REST base URL for GitHub Enterprise Server (or a local fake): `GHE_PROTOCOL://GHE_HOST/api/v3` when
 * GHE_HOST is set (Probot's variables), else GITHUB_API_URL. Reads three variables, so its issues carry their names.
 */
export const githubBaseUrl = () =>
  z
    .object({
      GHE_HOST: z.string().optional(),
      GHE_PROTOCOL: oneOf(["https", "http"], "https or http").default("https"),
      GITHUB_API_URL: httpUrl("a URL like https://ghe.example.com/api/v3").optional(),
    })
    .transform((vars, ctx) => {
      if (vars.GHE_HOST === undefined) return vars.GITHUB_API_URL;
      const url = `${vars.GHE_PROTOCOL}://${vars.GHE_HOST}/api/v3`;
      const problem = urlProblem(url);
      if (problem === undefined) return url;
      ctx.issues.push({
        code: "custom",
        input: "(not shown)",
        path: ["GHE_HOST"],
        message: `must be a host name like ghe.example.com (no scheme, no path); ${problem}`,
      });
      return z.NEVER;
    });

/** Why `value` is not an http(s) URL, or undefined when it is. Never quotes the value. */
export function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The parser's message quotes the input, which may hold credentials; say it in our words instead.
    return "the value set is not a valid URL.";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "only http and https are supported.";
  return undefined;
}

/** The first of several variables that is set (`AWS_REGION`, else `AWS_DEFAULT_REGION`); undefined when none is. */
export const firstSet = () =>
  z.record(z.string(), z.string().optional()).transform((vars) => Object.values(vars).find((v) => v !== undefined));

/** The values of every one of several variables that is set (in the order named); undefined when none is. */
export const allSet = () =>
  z.record(z.string(), z.string().optional()).transform((vars) => {
    const set = Object.values(vars).filter((v): v is string => v !== undefined);
    return set.length ? set : undefined;
  });

/** One environment variable (or, for a derived value, several) and the schema that reads it. */
export interface Variable<S extends z.ZodType> {
  names: string | readonly string[];
  schema: S;
}

export const variable = <S extends z.ZodType>(names: string | readonly string[], schema: S): Variable<S> => ({
  names,
  schema,
});

/**
 * The replay benchmark's command line, parsed without touching the app: `--format a,b`, `--cases a,b`,
 * `--variant clean,noisy` (each a comma-separated list; `--name value` or `--name=value`), `--unsandboxed`,
 * `--repeat N` (each run N times in a row: the later ones find the repository's caches warm) and `--cold` (every run a
 * repository name of its own, so no run finds a cache; by default the runs of one repository share its name) and
 * `--model-latency-ms N` (the oracle answers each model request N ms after it came, as a real model takes seconds to
 * write: what runs beside the model, the base's checks and the change's early setup, shows in the time to the answer).
 */
import { EDIT_FORMAT_NAMES, type EditFormatName } from "../../src/edits/types.js";

export type Variant = "clean" | "noisy";
export const VARIANTS: readonly Variant[] = ["clean", "noisy"];

export interface ReplayArgs {
  formats: EditFormatName[];
  /** The case ids asked for, or undefined for every case of the manifest. */
  cases: string[] | undefined;
  variants: Variant[];
  sandbox: "off" | "bubblewrap";
  repeat: number;
  cold: boolean;
  /** How long the oracle takes to answer each model request (0: at once). */
  modelLatencyMs: number;
}

function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** A comma-separated list, blanks dropped; undefined when the option is absent. */
function list(args: readonly string[], name: string): string[] | undefined {
  const value = option(args, name);
  if (value === undefined) return undefined;
  const items = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!items.length) throw new Error(`${name}: give one or more values, comma-separated`);
  return items;
}

/** Each value checked against `known`, so a typo stops the bench before hours of runs instead of failing each one. */
function checked<T extends string>(name: string, values: string[], known: readonly T[]): T[] {
  const unknown = values.filter((v) => !known.includes(v as T));
  if (unknown.length) throw new Error(`${name}: "${unknown.join('", "')}" is not one of ${known.join(", ")}`);
  return [...new Set(values)] as T[];
}

function count(args: readonly string[], name: string): number {
  const value = option(args, name);
  if (value === undefined) return 1;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`${name}: give a whole number of runs, 1 or more (got "${value}")`);
  return Number(value);
}

function millis(args: readonly string[], name: string): number {
  const value = option(args, name);
  if (value === undefined) return 0;
  if (!/^\d+$/.test(value)) throw new Error(`${name}: give a whole number of milliseconds, 0 or more (got "${value}")`);
  return Number(value);
}

export function parseReplayArgs(args: readonly string[]): ReplayArgs {
  const formats = list(args, "--format");
  const variants = list(args, "--variant");
  return {
    formats: formats ? checked("--format", formats, EDIT_FORMAT_NAMES) : [...EDIT_FORMAT_NAMES],
    cases: list(args, "--cases"),
    variants: variants ? checked("--variant", variants, VARIANTS) : [...VARIANTS],
    sandbox: args.includes("--unsandboxed") ? "off" : "bubblewrap",
    repeat: count(args, "--repeat"),
    cold: args.includes("--cold"),
    modelLatencyMs: millis(args, "--model-latency-ms"),
  };
}

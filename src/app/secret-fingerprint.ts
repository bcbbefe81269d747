import { createHash } from "node:crypto";

/**
 * What a job process knows about a secret it must never hold (the webhook secret, the App's key lines): enough to
 * recognise the value in text it writes, not enough to use it. A polynomial rolling hash finds candidate places in
 * one pass; SHA-256 confirms them.
 */
export interface SecretFingerprint {
  length: number;
  roll: number;
  sha256: string;
}

const BASE = 257;
/** Windows whose hash misses this filter (indexed by the hash's low bits) are passed over without a map lookup. */
const FILTER_BITS = 12;
const FILTER_MASK = (1 << FILTER_BITS) - 1;

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** One step of the rolling hash: `h·BASE + c`, modulo 2³² (integer arithmetic, no division). */
const step = (h: number, c: number): number => (Math.imul(h, BASE) + c) >>> 0;

/** The fingerprint of `secret` (UTF-16 code units, as JavaScript strings count them). */
export function fingerprint(secret: string): SecretFingerprint {
  let roll = 0;
  for (let i = 0; i < secret.length; i++) roll = step(roll, secret.charCodeAt(i));
  return { length: secret.length, roll, sha256: sha256(secret) };
}

/**
 * `text` with every occurrence of a fingerprinted secret replaced by `replacement`; linear in the text's length.
 * Secrets of one length share one pass (an App key's PEM lines are mostly 64 characters: one pass, not twenty-five),
 * and a pass costs a few integer operations per character: a job process redacts every model request, log line and
 * GitHub write with it (~1.5 ms for 30 KB, where a modulo-prime hash with a map lookup per window took 8–20 ms).
 */
export function redactFingerprinted(
  text: string,
  fingerprints: readonly SecretFingerprint[],
  replacement: string,
): string {
  let out = text;
  for (const { n, pow, filter, rolls } of passesFor(fingerprints)) {
    if (out.length < n) continue;
    const hits: number[] = [];
    let h = 0;
    for (let i = 0; i < out.length; i++) {
      if (i >= n) h = (h - Math.imul(out.charCodeAt(i - n), pow)) >>> 0;
      h = step(h, out.charCodeAt(i));
      if (i < n - 1 || filter[h & FILTER_MASK] === 0) continue;
      const start = i - n + 1;
      if (hits.length > 0 && start < hits.at(-1)! + n) continue;
      const candidates = rolls.get(h);
      if (candidates && candidates.includes(sha256(out.slice(start, i + 1)))) hits.push(start);
    }
    for (let k = hits.length - 1; k >= 0; k--) out = out.slice(0, hits[k]!) + replacement + out.slice(hits[k]! + n);
  }
  return out;
}

/** One pass per secret length: the window's length, the weight of the character leaving it, its filter and rolls. */
interface Pass {
  n: number;
  pow: number;
  filter: Uint8Array;
  rolls: Map<number, string[]>;
}

/** The passes of a list of fingerprints, made once per list (a job process redacts everything with the same one). */
const passCache = new WeakMap<readonly SecretFingerprint[], Pass[]>();

function passesFor(fingerprints: readonly SecretFingerprint[]): Pass[] {
  const cached = passCache.get(fingerprints);
  if (cached) return cached;
  const byLength = new Map<number, Map<number, string[]>>();
  for (const fp of fingerprints) {
    if (fp.length === 0) continue;
    const rolls = byLength.get(fp.length) ?? new Map<number, string[]>();
    rolls.set(fp.roll, [...(rolls.get(fp.roll) ?? []), fp.sha256]);
    byLength.set(fp.length, rolls);
  }
  const passes = [...byLength].map(([n, rolls]): Pass => {
    // BASE^(n-1) modulo 2³².
    let pow = 1;
    for (let i = 1; i < n; i++) pow = Math.imul(pow, BASE) >>> 0;
    const filter = new Uint8Array(FILTER_MASK + 1);
    for (const roll of rolls.keys()) filter[roll & FILTER_MASK] = 1;
    return { n, pow, filter, rolls };
  });
  passCache.set(fingerprints, passes);
  return passes;
}

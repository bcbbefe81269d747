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
const MOD = 2_147_483_647;

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** The fingerprint of `secret` (UTF-16 code units, as JavaScript strings count them). */
export function fingerprint(secret: string): SecretFingerprint {
  let roll = 0;
  for (let i = 0; i < secret.length; i++) roll = (roll * BASE + secret.charCodeAt(i)) % MOD;
  return { length: secret.length, roll, sha256: sha256(secret) };
}

/**
 * `text` with every occurrence of a fingerprinted secret replaced by `replacement`; linear in the text's length.
 * Secrets of one length share one pass (an App key's PEM lines are mostly 64 characters: one pass, not twenty-five).
 */
export function redactFingerprinted(text: string, fingerprints: readonly SecretFingerprint[], replacement: string): string {
  const byLength = new Map<number, Map<number, string[]>>();
  for (const fp of fingerprints) {
    if (fp.length === 0) continue;
    const rolls = byLength.get(fp.length) ?? new Map<number, string[]>();
    rolls.set(fp.roll, [...(rolls.get(fp.roll) ?? []), fp.sha256]);
    byLength.set(fp.length, rolls);
  }
  let out = text;
  for (const [n, rolls] of byLength) {
    if (out.length < n) continue;
    let pow = 1;
    for (let i = 1; i < n; i++) pow = (pow * BASE) % MOD;
    const hits: number[] = [];
    let h = 0;
    for (let i = 0; i < out.length; i++) {
      if (i >= n) h = (h - ((out.charCodeAt(i - n) * pow) % MOD) + MOD) % MOD;
      h = (h * BASE + out.charCodeAt(i)) % MOD;
      const start = i - n + 1;
      if (start < 0 || (hits.length > 0 && start < hits.at(-1)! + n)) continue;
      const candidates = rolls.get(h);
      if (candidates && candidates.includes(sha256(out.slice(start, i + 1)))) hits.push(start);
    }
    for (let k = hits.length - 1; k >= 0; k--) out = out.slice(0, hits[k]!) + replacement + out.slice(hits[k]! + n);
  }
  return out;
}

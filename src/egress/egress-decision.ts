import { isIP } from "node:net";
import type { BlockKind } from "../exec/types.js";
import { forbiddenAddress } from "./address-class.js";
import { matchesAny } from "./host-match.js";
import { hostPortKey, type EgressRules } from "./network-policy.js";

/** Every address a name resolves to (`dns.promises.lookup(name, { all: true })`); injectable for tests. */
export type LookupAll = (host: string) => Promise<{ address: string; family: number }[]>;

export type { BlockKind } from "../exec/types.js";

export type Decision =
  | { ok: true; address: string; internal: boolean }
  | { ok: false; kind: BlockKind; reason: string }
  /** The name does not resolve: an error for the client, not a refusal of the policy. */
  | { ok: false; kind: "unresolved"; reason: string };

/**
 * Whether the proxy connects to `host:port`, and to which address: an exact internal pair of the operator's goes to
 * whatever it resolves to; any other target must be a host name on the allowlist that resolves to at least one public
 * address, and the proxy connects to that very address (no second lookup, so no DNS-rebinding window).
 */
export async function decide(host: string, port: number, rules: EgressRules, lookup: LookupAll): Promise<Decision> {
  const internal = rules.internal.includes(hostPortKey({ host, port }));
  const literal = isIP(host) !== 0;
  const bad = literal && !internal ? forbiddenAddress(host) : null;
  if (bad !== null) return { ok: false, kind: "address", reason: `a ${bad} address` };
  if (!internal && (literal || !matchesAny(host, rules.allow)))
    return {
      ok: false,
      kind: "not-allowed",
      reason: literal ? "an address, not a host name on the allowlist" : "not on the allowlist",
    };
  let addresses: string[];
  try {
    addresses = literal ? [host] : (await lookup(host)).map((a) => a.address);
  } catch (error) {
    return { ok: false, kind: "unresolved", reason: `${host} could not be resolved (${(error as Error).message})` };
  }
  if (addresses.length === 0) return { ok: false, kind: "unresolved", reason: `${host} has no address` };
  if (internal) return { ok: true, address: addresses[0]!, internal: true };
  const usable = addresses.find((a) => forbiddenAddress(a) === null);
  if (usable !== undefined) return { ok: true, address: usable, internal: false };
  const first = addresses[0]!;
  return {
    ok: false,
    kind: "address",
    reason: `resolves to ${first}, a ${forbiddenAddress(first)} address`,
  };
}

import { isIP } from "node:net";

/**
 * Which addresses the egress proxy never connects to, whatever the allowlist says (pure): what a sandboxed script
 * could use to reach the host's own services, the cloud metadata endpoint or the operator's network. IPv4 addresses
 * embedded in IPv6 ones (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, IPv4-compatible
 * `::a.b.c.d`) are judged as the IPv4 address they carry.
 */

/** Why `address` is never connected to (`loopback`, `link-local (cloud metadata)`, …), or null when it may be. */
export function forbiddenAddress(address: string): string | null {
  const kind = isIP(address);
  if (kind === 4) return forbiddenV4(v4Bytes(address));
  if (kind === 6) return forbiddenV6(v6Words(address));
  return "not an IP address";
}

function forbiddenV4(b: number[]): string | null {
  const [a, c] = [b[0]!, b[1]!];
  if (a === 0) return "unspecified (0.0.0.0/8)";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && c >= 16 && c <= 31) || (a === 192 && c === 168)) return "private";
  if (a === 100 && c >= 64 && c <= 127) return "shared address space (100.64.0.0/10)";
  if (a === 169 && c === 254) return "link-local (cloud metadata)";
  if (a === 192 && c === 0 && b[2] === 0) return "IETF protocol assignments (192.0.0.0/24)";
  if (a === 198 && (c === 18 || c === 19)) return "benchmarking (198.18.0.0/15)";
  if (a >= 224) return a < 240 ? "multicast" : "reserved";
  return null;
}

function forbiddenV6(w: number[]): string | null {
  const zeroTo = (n: number) => w.slice(0, n).every((x) => x === 0);
  if (zeroTo(8)) return "unspecified (::)";
  if (zeroTo(7) && w[7] === 1) return "loopback";
  // IPv4-mapped and IPv4-compatible: the IPv4 address in the low 32 bits.
  if (zeroTo(5) && (w[5] === 0xffff || w[5] === 0)) return forbiddenV4(low32(w));
  // NAT64 (64:ff9b::/96) reaches the IPv4 address it embeds.
  if (w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0)) return forbiddenV4(low32(w));
  // 6to4 (2002::/16) carries an IPv4 address in bits 16–47.
  if (w[0] === 0x2002) return forbiddenV4([w[1]! >> 8, w[1]! & 0xff, w[2]! >> 8, w[2]! & 0xff]);
  if ((w[0]! & 0xffc0) === 0xfe80) return "link-local (fe80::/10)";
  if ((w[0]! & 0xffc0) === 0xfec0) return "site-local (fec0::/10)";
  if ((w[0]! & 0xfe00) === 0xfc00) return "unique-local (fc00::/7)";
  if ((w[0]! & 0xff00) === 0xff00) return "multicast";
  return null;
}

const low32 = (w: number[]) => [w[6]! >> 8, w[6]! & 0xff, w[7]! >> 8, w[7]! & 0xff];

function v4Bytes(address: string): number[] {
  return address.split(".").map(Number);
}

/** The eight 16-bit words of an IPv6 address (`::`, an embedded dotted quad and a zone id handled). */
function v6Words(address: string): number[] {
  let a = address.toLowerCase().replace(/%.*$/, "");
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (quad) {
    const b = v4Bytes(quad[1]!);
    a = `${a.slice(0, quad.index)}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const [head, tail] = a.includes("::") ? a.split("::") : [a, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16));
}

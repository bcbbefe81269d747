/**
 * The server name (SNI) of a TLS ClientHello, read from the first bytes a client sends (pure). The egress proxy
 * compares it with the host a CONNECT named, so a tunnel opened to an allowed host cannot ask a shared front (a CDN)
 * for another one.
 */
export type SniResult =
  /** A complete ClientHello; `name` is its host_name, or null when it carries none. */
  | { kind: "hello"; name: string | null }
  /** The bytes so far are the start of a ClientHello: wait for more. */
  | { kind: "incomplete" }
  /** Not a TLS ClientHello. */
  | { kind: "not-tls" };

/** The largest TLS record (2^14 bytes plus the header): a ClientHello that does not fit is refused. */
export const MAX_HELLO_BYTES = 16_384 + 5;

export function parseSni(buf: Buffer): SniResult {
  if (buf.length < 1) return { kind: "incomplete" };
  if (buf[0] !== 0x16) return { kind: "not-tls" };
  if (buf.length < 5) return { kind: "incomplete" };
  if (buf[1] !== 0x03) return { kind: "not-tls" };
  const recordLength = buf.readUInt16BE(3);
  if (recordLength > MAX_HELLO_BYTES - 5) return { kind: "not-tls" };
  if (buf.length < 5 + recordLength) return { kind: "incomplete" };
  const hello = buf.subarray(5, 5 + recordLength);
  try {
    return { kind: "hello", name: helloName(hello) };
  } catch {
    return { kind: "not-tls" };
  }
}

/** The host_name of a ClientHello handshake message; throws when it is malformed. */
function helloName(h: Buffer): string | null {
  const r = reader(h);
  if (r.u8() !== 0x01) throw new Error("not a ClientHello");
  const length = r.u24();
  if (length > h.length - 4) throw new Error("a ClientHello split over records");
  r.skip(2 + 32); // version, random
  r.skip(r.u8()); // session id
  r.skip(r.u16()); // cipher suites
  r.skip(r.u8()); // compression methods
  if (r.done()) return null;
  const end = r.at() + r.u16();
  while (r.at() + 4 <= end) {
    const type = r.u16();
    const size = r.u16();
    if (type !== 0x0000) {
      r.skip(size);
      continue;
    }
    const listEnd = r.at() + r.u16();
    while (r.at() + 3 <= listEnd) {
      const nameType = r.u8();
      const nameLength = r.u16();
      const name = r.bytes(nameLength);
      if (nameType === 0) return name.toString("ascii").toLowerCase();
    }
    return null;
  }
  return null;
}

function reader(buf: Buffer) {
  let at = 0;
  const need = (n: number) => {
    if (at + n > buf.length) throw new Error("truncated");
  };
  return {
    at: () => at,
    done: () => at >= buf.length,
    u8: () => (need(1), buf[at++]!),
    u16: () => (need(2), (at += 2), buf.readUInt16BE(at - 2)),
    u24: () => (need(3), (at += 3), buf.readUIntBE(at - 3, 3)),
    skip: (n: number) => (need(n), (at += n)),
    bytes: (n: number) => (need(n), (at += n), buf.subarray(at - n, at)),
  };
}

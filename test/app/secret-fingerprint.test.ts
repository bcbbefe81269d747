import fc from "fast-check";
import { fingerprint, redactFingerprinted } from "../../src/app/secret-fingerprint.js";

describe("secret fingerprints", () => {
  const secret = "e2e-webhook-secret-0123";
  it("finds every occurrence of the secret in text without holding it", () => {
    const fp = fingerprint(secret);
    expect(JSON.stringify(fp)).not.toContain(secret);
    const text = `a ${secret} b ${secret}${secret} c`;
    expect(redactFingerprinted(text, [fp], "[REDACTED]")).toBe("a [REDACTED] b [REDACTED][REDACTED] c");
  });

  it("leaves text without the secret, or with only part of it, unchanged", () => {
    const text = `near miss: ${secret.slice(0, -1)}X and ${"x".repeat(10_000)}`;
    expect(redactFingerprinted(text, [fingerprint(secret)], "[REDACTED]")).toBe(text);
  });
});

describe("secret fingerprints, many secrets", () => {
  it("redacts each of many secrets (several of one length, as an App key's lines are) wherever they occur", () => {
    const lines = Array.from(
      { length: 25 },
      (_, i) => `${String.fromCharCode(65 + i)}`.repeat(20) + `line-${i}`.padEnd(44, "x"),
    );
    const others = ["short-secret", "a-webhook-secret-of-another-length"];
    const fps = [...lines, ...others].map(fingerprint);
    const text = ["start", lines[3], "mid", lines[24], others[0], lines[3], others[1], "end"].join(" ");
    expect(redactFingerprinted(text, fps, "[R]")).toBe("start [R] mid [R] [R] [R] [R] end");
    expect(redactFingerprinted("nothing secret here", fps, "[R]")).toBe("nothing secret here");
  });
});

describe("secret fingerprints, against a plain search", () => {
  /** The same redaction by plain string search: per length, in the order lengths first appear, leftmost first. */
  function plainRedact(text: string, secrets: readonly string[], replacement: string): string {
    let out = text;
    const lengths = [...new Set(secrets.filter((s) => s.length > 0).map((s) => s.length))];
    for (const n of lengths) {
      const same = new Set(secrets.filter((s) => s.length === n));
      let result = "";
      let i = 0;
      while (i < out.length) {
        if (i + n <= out.length && same.has(out.slice(i, i + n))) {
          result += replacement;
          i += n;
        } else result += out[i++];
      }
      out = result;
    }
    return out;
  }

  it("redacts exactly what a plain search finds, for secrets and texts over a small alphabet (many near misses)", () => {
    const word = fc.string({ unit: fc.constantFrom("a", "b", "é", "\n", "🙂"), minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 5 }),
        fc.array(fc.oneof(word, fc.string({ maxLength: 8 })), { maxLength: 30 }),
        (secrets, pieces) => {
          const text = pieces.join("");
          const fps = secrets.map(fingerprint);
          return redactFingerprinted(text, fps, "[R]") === plainRedact(text, secrets, "[R]");
        },
      ),
      { numRuns: 500 },
    );
  });
});

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

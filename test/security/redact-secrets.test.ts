import { generateKeyPairSync } from "node:crypto";
import { createSecretRedactor, redactDeep, REDACTED } from "../../src/security/redact-secrets.js";

const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 1024,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});

describe("createSecretRedactor", () => {
  it("runs its passes after the known values and shapes", () => {
    const r = createSecretRedactor(
      ["known-secret-value"],
      [(text) => text.replaceAll("fingerprinted-value", REDACTED)],
    );
    expect(r.redact("known-secret-value and fingerprinted-value")).toBe(`${REDACTED} and ${REDACTED}`);
  });

  it("is a value: a secret registered with one redactor is unknown to another in the same process", () => {
    const job = createSecretRedactor(["job-one-token-value"]);
    const other = createSecretRedactor();
    other.add("other-driver-secret");
    expect(job.redact("other-driver-secret")).toBe("other-driver-secret");
    expect(other.redact("job-one-token-value")).toBe("job-one-token-value");
    // A writer that took `redact` before a later `add` still sees it (tokens are minted while the run goes on).
    const taken = job.redact;
    job.add("minted-later-token");
    expect(taken("minted-later-token")).toBe(REDACTED);
  });

  it("removes every registered value, including one registered after creation", () => {
    const r = createSecretRedactor(["model-key-value-123", undefined, "whsec-abcdefgh"]);
    r.add("ghs_runtimeMintedToken");
    const out = r.redact("key model-key-value-123, secret whsec-abcdefgh, token ghs_runtimeMintedToken.");
    expect(out).toBe(`key ${REDACTED}, secret ${REDACTED}, token ${REDACTED}.`);
  });

  it("removes any single line of the App's private key, wherever it appears, and a whole PEM block", () => {
    const r = createSecretRedactor([privateKey]);
    const lines = privateKey.trim().split("\n").slice(1, -1);
    const middle = lines[3]!;
    expect(r.redact(`echoed: ${middle} (done)`)).toBe(`echoed: ${REDACTED} (done)`);
    // Split across lines differently (indented in a code block): each line is still caught.
    const indented = lines.map((l) => `    ${l}`).join("\n");
    for (const l of lines) expect(r.redact(indented)).not.toContain(l);
    // A PEM block of a key we were never told about.
    const other = generateKeyPairSync("ec", {
      namedCurve: "P-256",
      privateKeyEncoding: { type: "sec1", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    }).privateKey;
    const text = createSecretRedactor().redact(`before\n${other}after`);
    expect(text).toBe(`before\n${REDACTED}\nafter`);
  });

  it("removes well-known secret shapes it was not told about", () => {
    const r = createSecretRedactor();
    const samples = [
      "ghp_" + "a1B2".repeat(9),
      "gho_" + "Z9y8".repeat(9),
      "ghs_" + "Q".repeat(36),
      "ghu_" + "x".repeat(36),
      "ghr_" + "7".repeat(36),
      "github_pat_" + "11ABCDEFG0".repeat(3) + "_" + "z".repeat(40),
      "sk-proj-" + "abcDEF123_-".repeat(4),
      "sk-ant-api03-" + "k".repeat(40),
      "AKIA" + "IOSFODNN7EXAMPLE",
      "AIza" + "S".repeat(35),
      "xoxb-" + "1234567890-abcdefghij",
      "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxMjMiLCJpYXQiOjF9.c2lnbmF0dXJlLXBhcnQ",
    ];
    for (const s of samples) expect(r.redact(`value: ${s} end`)).toBe(`value: ${REDACTED} end`);
    expect(r.redact("push https://x-access-token:abcdef123456@github.com/o/r.git")).toBe(
      `push https://x-access-token:${REDACTED}@github.com/o/r.git`,
    );
    expect(r.redact("Authorization: token abcdef1234567890")).toBe(`Authorization: token ${REDACTED}`);
    expect(r.redact("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toBe(
      `aws_secret_access_key = ${REDACTED}`,
    );
  });

  it("leaves ordinary text alone and skips values too short to be secrets", () => {
    const r = createSecretRedactor(["x", "short"]);
    const text = "Fix the task-runner: sk-short is not a key, nor is ghp_ alone; see https://github.com/o/r.";
    expect(r.redact(text)).toBe(text);
  });

  it("redactDeep reaches strings inside objects and arrays", () => {
    const r = createSecretRedactor(["super-secret-value"]);
    expect(redactDeep({ a: ["super-secret-value"], b: { c: "x super-secret-value" }, n: 1 }, r.redact)).toEqual({
      a: [REDACTED],
      b: { c: `x ${REDACTED}` },
      n: 1,
    });
  });
});

import { createRedactingLogger } from "../../src/security/create-redacting-logger.js";
import { createSecretRedactor, REDACTED } from "../../src/security/redact-secrets.js";

describe("createRedactingLogger", () => {
  it("redacts messages, objects, child bindings and error messages, and drops a webhook error's payload", async () => {
    const lines: string[] = [];
    const log = await createRedactingLogger({
      level: "info",
      redactor: createSecretRedactor(["model-key-0123456789"]),
      sink: { write: (l) => lines.push(l) },
    });
    log.info("key model-key-0123456789 in a message");
    log.child({ token: "ghs_" + "A".repeat(36) }).warn({ detail: "model-key-0123456789" }, "child");
    const err = Object.assign(new Error("Signature does not match, key model-key-0123456789"), {
      event: { id: "d1", name: "issues", payload: { big: "P".repeat(5000) } },
    });
    log.error(err, "webhook failed");
    log.error(
      { err: Object.assign(new Error("422"), { request: { body: "the whole comment body" } }) },
      "request failed",
    );
    const out = lines.join("");
    expect(out).not.toContain("model-key-0123456789");
    expect(out).not.toContain("ghs_AAAA");
    expect(out).toContain(REDACTED);
    expect(out).not.toContain("PPPP");
    expect(out).not.toContain("the whole comment body");
    expect(out).toContain('"id":"d1"');
  });

  it("logs a received event (as Probot does at debug level) as its id and name, never its payload; a string event stays", async () => {
    const lines: string[] = [];
    const log = await createRedactingLogger({
      level: "debug",
      redactor: createSecretRedactor([]),
      sink: { write: (l) => lines.push(l) },
    });
    log.debug(
      { event: { id: "d2", name: "issue_comment", payload: { comment: { body: "PRIVATE-TEXT" } } } },
      "Webhook received",
    );
    log.info({ delivery: "d3", event: "issues" }, "webhook");
    const [received, plain] = lines.map((l) => JSON.parse(l) as { event: unknown });
    expect(received!.event).toEqual({ id: "d2", name: "issue_comment" });
    expect(lines.join("")).not.toContain("PRIVATE-TEXT");
    expect(plain!.event).toBe("issues");
  });
});

import { isJsonObject, payloadField } from "../../src/github/payload-field.js";

describe("payloadField", () => {
  const payload = { repository: { full_name: "acme/web", owner: { login: "acme" } }, list: [{ id: 1 }], n: null };

  it("reads a nested field of a payload", () => {
    expect(payloadField(payload, "repository", "full_name")).toBe("acme/web");
    expect(payloadField(payload, "repository", "owner", "login")).toBe("acme");
    expect(payloadField(payload)).toBe(payload);
  });

  it("is undefined where a step is missing, null, a primitive or an array", () => {
    expect(payloadField(payload, "issue", "number")).toBeUndefined();
    expect(payloadField(payload, "n", "x")).toBeUndefined();
    expect(payloadField(payload, "repository", "full_name", "length")).toBeUndefined();
    expect(payloadField(payload, "list", "0")).toBeUndefined();
    expect(payloadField(null, "action")).toBeUndefined();
    expect(payloadField("text", "length")).toBeUndefined();
  });

  it("reads the fields of an Error (Octokit's RequestError carries status and response)", () => {
    const error = Object.assign(new Error("Not Found"), { status: 404, response: { headers: { "retry-after": "3" } } });
    expect(payloadField(error, "status")).toBe(404);
    expect(payloadField(error, "response", "headers", "retry-after")).toBe("3");
  });

  it("isJsonObject: objects only", () => {
    expect([{}, [], null, "x", 1].map(isJsonObject)).toEqual([true, false, false, false, false]);
  });
});

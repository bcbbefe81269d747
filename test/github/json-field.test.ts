import { isJsonObject, jsonField } from "../../src/github/json-field.js";

describe("jsonField", () => {
  const payload = { repository: { full_name: "acme/web", owner: { login: "acme" } }, list: [{ id: 1 }], n: null };

  it("reads a nested field of a payload", () => {
    expect(jsonField(payload, "repository", "full_name")).toBe("acme/web");
    expect(jsonField(payload, "repository", "owner", "login")).toBe("acme");
    expect(jsonField(payload)).toBe(payload);
  });

  it("is undefined where a step is missing, null, a primitive or an array", () => {
    expect(jsonField(payload, "issue", "number")).toBeUndefined();
    expect(jsonField(payload, "n", "x")).toBeUndefined();
    expect(jsonField(payload, "repository", "full_name", "length")).toBeUndefined();
    expect(jsonField(payload, "list", "0")).toBeUndefined();
    expect(jsonField(null, "action")).toBeUndefined();
    expect(jsonField("text", "length")).toBeUndefined();
  });

  it("reads the fields of an Error (Octokit's RequestError carries status and response)", () => {
    const error = Object.assign(new Error("Not Found"), { status: 404, response: { headers: { "retry-after": "3" } } });
    expect(jsonField(error, "status")).toBe(404);
    expect(jsonField(error, "response", "headers", "retry-after")).toBe("3");
  });

  it("isJsonObject: objects only", () => {
    expect([{}, [], null, "x", 1].map(isJsonObject)).toEqual([true, false, false, false, false]);
  });
});

import { createRouteTable, type Route } from "../../testkit/fake-route-table.js";

type Call = { name: string };
const route = (method: string, path: string): Route<Call> => ({
  method,
  path,
  handle: () => ({ status: 200, text: `${method} ${path}` }),
});

describe("createRouteTable", () => {
  const find = createRouteTable<Call>([
    route("GET", ""),
    route("GET", "issues/comments/:id"),
    route("GET", "issues/:number"),
    route("POST", "issues/:number/comments"),
    route("GET", "contents/*"),
    route("*", "anything/:x"),
  ]);

  it("takes the first route whose method and segments fit, in table order", () => {
    expect(find("GET", ["issues", "comments", "7"])?.route.path).toBe("issues/comments/:id");
    expect(find("GET", ["issues", "12"])?.route.path).toBe("issues/:number");
    expect(find("GET", [])?.route.path).toBe("");
  });

  it("captures :name segments raw and a final * as the tail (possibly empty)", () => {
    const hit = find("POST", ["issues", "3", "comments"]);
    expect(hit?.match.param("number")).toBe("3");
    expect(find("GET", ["contents", "src", "a%20b.ts"])?.match.tail).toEqual(["src", "a%20b.ts"]);
    expect(find("GET", ["contents"])?.match.tail).toEqual([]);
  });

  it("matches a route's method exactly, or any method for *", () => {
    expect(find("PATCH", ["issues", "12"])).toBeNull();
    expect(find("DELETE", ["anything", "1"])?.route.path).toBe("anything/:x");
  });

  it("needs the exact number of segments unless the pattern ends in *", () => {
    expect(find("GET", ["issues", "12", "extra"])).toBeNull();
    expect(find("GET", ["issues"])).toBeNull();
  });

  it("throws when a handler asks for a parameter its pattern does not name (a programming error)", () => {
    expect(() => find("GET", ["issues", "12"])?.match.param("id")).toThrow("route issues/:number has no parameter :id");
  });
});

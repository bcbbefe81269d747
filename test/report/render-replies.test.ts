import { renderConfigProblems } from "../../src/report/render-config-problems.js";
import { renderUnauthorized } from "../../src/report/render-unauthorized.js";

describe("reply rendering", () => {
  it("unauthorized: marker per user, the permission needed and held, no promise of further replies", () => {
    const body = renderUnauthorized({ login: "Ann", needed: "write", have: "read", command: "aider" });
    expect(body.split("\n")[0]).toBe("<!-- aider-bot:unauthorized:ann -->");
    expect(body).toContain("@Ann");
    expect(body).toContain("@Ann needs `write` permission or higher on this repository to use `/aider`");
    expect(body).toContain("(you have `read`)");
    expect(renderUnauthorized({ login: "x", needed: "triage", have: "none", command: "bot" })).toContain(
      "(you have no access)",
    );
  });

  it("config problems: one line per problem with its key path", () => {
    const body = renderConfigProblems([
      { path: "test", message: "must be a string" },
      { path: "trigger.min_permission", message: "must be one of `read`, `triage`" },
      { path: "", message: "unknown key `x`" },
    ]);
    expect(body.split("\n")[0]).toBe("<!-- aider-bot:config-problems -->");
    expect(body).toContain(
      "- `test`: must be a string\n- `trigger.min_permission`: must be one of `read`, `triage`\n- `(file)`: unknown key `x`",
    );
  });
});

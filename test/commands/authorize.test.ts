import { authorize } from "../../src/commands/authorize.js";

const trigger = { min_permission: "write" as const, ask_permission: "triage" as const, allowed_bots: [42] };
const user = (login = "ann") => ({ login, type: "User" });

describe("authorize", () => {
  it.each([
    ["writer runs", user(), "run", "write", true],
    ["admin runs", user(), "run", "admin", true],
    ["maintainer undoes", user(), "undo", "maintain", true],
    ["triager asks", user(), "ask", "triage", true],
    ["triager cannot run", user(), "run", "triage", false],
    ["reader cannot ask", user(), "ask", "read", false],
    ["non-collaborator", user("stranger"), "run", null, false],
    ["itself", { login: "aider-bot[bot]", type: "Bot" }, "run", "write", false],
    ["other bot", { login: "dependabot[bot]", type: "Bot", appId: 7 }, "run", "write", false],
    ["allow-listed bot", { login: "helper[bot]", type: "Bot", appId: 42 }, "run", null, true],
    ["a user named like a bot", { login: "evil[bot]", type: "User" }, "run", "read", false],
    ["itself, other case", { login: "Aider-Bot[bot]", type: "Bot" }, "run", "admin", false],
    ["admin who is a bot without allow-list", { login: "ci[bot]", type: "Bot" }, "run", "admin", false],
    ["triager asks for help", user(), "help", "triage", true],
    ["triager cancels", user(), "cancel", "triage", false],
    ["writer retries", user(), "retry", "write", true],
  ] as const)("%s", (_n, sender, verb, permission, allow) => {
    const d = authorize({ sender, verb, permission, selfLogin: "aider-bot[bot]", trigger });
    expect(d.allow).toBe(allow);
  });

  it("explains what permission is missing", () => {
    const d = authorize({ sender: user(), verb: "run", permission: "read", selfLogin: "x", trigger });
    expect(d).toMatchObject({ allow: false, reason: "permission" });
    expect(!d.allow && d.message).toBe(
      "@ann needs `write` permission on this repository to use this command (has `read`).",
    );
  });
});

import { composeCommitMessage } from "../../src/workspace/commit-message.js";
import { gitAuthEnv } from "../../src/workspace/auth-env.js";
import { parseNumstat } from "../../src/workspace/parse-numstat.js";
import { redactSecrets } from "../../src/workspace/redact.js";
import { parseCgiHeaders } from "../../testkit/git-cgi.js";

describe("redactSecrets", () => {
  const token = "ghs_abcdefghijklmnop";
  const b64 = Buffer.from(`x-access-token:${token}`).toString("base64");

  it.each([
    [
      `fatal: could not read from https://x-access-token:${token}@github.com/a/b`,
      "fatal: could not read from https://x-access-token:***@github.com/a/b",
    ],
    [`> Authorization: Basic ${b64}`, "> Authorization: Basic ***"],
    [`header ${b64} again ${b64}`, "header *** again ***"],
    ["authorization: bearer other-secret-value", "authorization: bearer ***"],
    ["nothing secret here", "nothing secret here"],
  ])("redacts %s", (input, expected) => {
    expect(redactSecrets(input, [token])).toBe(expected);
  });

  it("ignores empty and very short secrets instead of mangling text", () => {
    expect(redactSecrets("a b c", ["", undefined, "a"])).toBe("a b c");
  });
});

describe("gitAuthEnv", () => {
  it("puts the token only in a header value, with prompts and helpers off", () => {
    const env = gitAuthEnv("tok123");
    expect(env.GIT_TERMINAL_PROMPT).toBe("0");
    expect(env.GIT_CONFIG_COUNT).toBe("3");
    expect(env.GIT_CONFIG_VALUE_1).toBe(
      `Authorization: Basic ${Buffer.from("x-access-token:tok123").toString("base64")}`,
    );
    expect(Object.entries(env).filter(([, v]) => v.includes("tok123"))).toEqual([]);
    expect(gitAuthEnv(undefined)).toEqual({ GIT_TERMINAL_PROMPT: "0" });
  });
});

describe("composeCommitMessage", () => {
  it.each([
    [{ subject: "fix: x" }, "fix: x\n"],
    [{ subject: "fix: x", body: "why\n" }, "fix: x\n\nwhy\n"],
    [{ subject: "fix: x", trailers: ["A: 1", "B: 2"] }, "fix: x\n\nA: 1\nB: 2\n"],
    [{ subject: "fix: x", body: "# heading\ntext", trailers: ["A: 1"] }, "fix: x\n\n# heading\ntext\n\nA: 1\n"],
    [{ subject: "fix: x\nmore detail", body: "body" }, "fix: x\n\nmore detail\n\nbody\n"],
    [{ subject: "  ", trailers: ["A: 1\nB"] }, "(no commit message provided)\n\nA: 1 B\n"],
    [{ subject: "fix: crlf\r\n", body: "a\r\nb" }, "fix: crlf\n\na\nb\n"],
  ])("%j", (parts, expected) => {
    expect(composeCommitMessage(parts).message).toBe(expected);
  });
});

describe("parseNumstat", () => {
  it("reads plain, binary and renamed entries", () => {
    expect(parseNumstat("1\t2\ta.txt\0-\t-\timg.png\0" + "3\t0\t\0old.txt\0new.txt\0")).toEqual([
      { path: "a.txt", added: 1, removed: 2 },
      { path: "img.png", added: 0, removed: 0 },
      { path: "new.txt", added: 3, removed: 0 },
    ]);
  });
});

describe("parseCgiHeaders", () => {
  it("takes the status from Status: and keeps repeated headers", () => {
    expect(parseCgiHeaders("Status: 404 Not Found\r\nContent-Type: text/plain\r\nX-A: 1\r\nX-A: 2")).toEqual({
      status: 404,
      headers: { "Content-Type": "text/plain", "X-A": ["1", "2"] },
    });
    expect(parseCgiHeaders("Content-Type: application/x-git-upload-pack-advertisement").status).toBe(200);
  });
});

import {
  checkPathPolicy,
  checkResolvedPathPolicy,
  DEFAULT_PROTECTED_PATHS,
  normalizeEditPath,
} from "../../src/edits/path-policy.js";

describe("normalizeEditPath", () => {
  it.each([
    ["./src/a.ts", "src/a.ts"],
    ["src\\lib\\a.ts", "src/lib/a.ts"],
    ["src//lib///a.ts", "src/lib/a.ts"],
    ["src/./a.ts", "src/a.ts"],
    ["  a.ts  ", "a.ts"],
    ["/abs/a.ts", "/abs/a.ts"],
    ["src/", "src/"],
    ["a/../b", "a/../b"],
  ])("%s → %s", (input, expected) => {
    expect(normalizeEditPath(input)).toBe(expected);
  });
});

describe("checkPathPolicy", () => {
  it.each([
    ["src/a.ts", []],
    ["README.md", []],
    [".github/dependabot.yml", DEFAULT_PROTECTED_PATHS],
    ["docs/.gitignore", DEFAULT_PROTECTED_PATHS],
    ["a..b/c.ts", DEFAULT_PROTECTED_PATHS],
  ])("allows %s", (p, globs) => {
    expect(checkPathPolicy(p, globs)).toBeNull();
  });

  it.each([
    ["", /empty/],
    ["/etc/passwd", /absolute/],
    ["C:/Windows/x", /absolute/],
    ["~/.ssh/id_rsa", /absolute/],
    ["../x", /leave the repository/],
    ["a/../../x", /leave the repository/],
    [".git/config", /\.git/],
    ["sub/.git/HEAD", /\.git/],
    [".Git/config", /\.git/],
    ["src/", /folder/],
    [".github/workflows/ci.yml", /protected/],
    [".github/workflows/nested/x.yaml", /protected/],
  ])("refuses %s", (p, why) => {
    const r = checkPathPolicy(p);
    expect(r?.reason).toBe("unsafe-path");
    expect(r?.message).toMatch(why);
  });

  it("uses the repository's own protected globs instead of the default", () => {
    expect(checkPathPolicy("secrets/prod.env", ["secrets/**"])?.reason).toBe("unsafe-path");
    expect(checkPathPolicy(".github/workflows/ci.yml", ["secrets/**"])).toBeNull();
    expect(checkPathPolicy("config/app.lock", ["*.lock"])?.message).toContain("*.lock");
  });
});

describe("checkResolvedPathPolicy", () => {
  it("judges where a link really leads, naming both paths", () => {
    const r = checkResolvedPathPolicy("wf/ci.yml", ".github/workflows/ci.yml");
    expect(r?.reason).toBe("unsafe-path");
    expect(r?.message).toBe(
      "Refused to edit `wf/ci.yml`: through a symbolic link it is `.github/workflows/ci.yml`, and it matches a protected path (.github/workflows/**) in the repository's aider-bot config.",
    );
    expect(checkResolvedPathPolicy("g/hooks/pre-commit", ".git/hooks/pre-commit", [])?.message).toMatch(
      /`\.git\/hooks\/pre-commit`, and files under `\.git\/` are never edited\.$/,
    );
  });

  it("is the plain policy when nothing was followed, and allows a link to an unprotected file", () => {
    expect(checkResolvedPathPolicy(".github/workflows/ci.yml", ".github/workflows/ci.yml")).toEqual(
      checkPathPolicy(".github/workflows/ci.yml"),
    );
    expect(checkResolvedPathPolicy("docs/link.md", "README.md")).toBeNull();
  });
});

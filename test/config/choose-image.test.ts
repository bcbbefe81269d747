import { chooseImage, DEFAULT_TOOLCHAIN_IMAGES, isImageReference } from "../../src/config/choose-image.js";
import { readDevcontainerImage, stripJsonc } from "../../src/config/read-devcontainer-image.js";

const defaultImage = "docker.io/library/buildpack-deps:bookworm";

describe("chooseImage", () => {
  it.each([
    [
      {
        configImage: "ghcr.io/acme/ci:3",
        devcontainerImage: "mcr.microsoft.com/devcontainers/python:3.12",
        toolchain: { python: "3.12" },
      },
      "ghcr.io/acme/ci:3",
      "`sandbox.image` in .github/aider.yml",
    ],
    [
      { devcontainerImage: "mcr.microsoft.com/devcontainers/python:3.12", workflowImage: "node:20" },
      "mcr.microsoft.com/devcontainers/python:3.12",
      "`image` in .devcontainer/devcontainer.json",
    ],
    [{ workflowImage: "node:20", toolchain: { python: "3.12" } }, "node:20", "the CI workflow job's `container:`"],
    [{ toolchain: { python: "3.12" } }, "docker.io/library/python:3.12", "the repository's toolchain (python 3.12)"],
    [
      { toolchain: { python: "3.12.4" } },
      "docker.io/library/python:3.12",
      "the repository's toolchain (python 3.12.4)",
    ],
    [{ toolchain: { node: "^20" } }, "docker.io/library/node:20", "the repository's toolchain (node ^20)"],
    [{ toolchain: { go: "1.22" } }, "docker.io/library/golang:1.22", "the repository's toolchain (go 1.22)"],
    [{ toolchain: { rust: "stable" } }, "docker.io/library/rust:1", "the repository's toolchain (rust stable)"],
    [{ toolchain: { java: "17" } }, "docker.io/library/eclipse-temurin:17", "the repository's toolchain (java 17)"],
    [{ toolchain: { python: "" } }, "docker.io/library/python:3", "the repository's toolchain (python)"],
    [{ toolchain: { cobol: "85" } }, defaultImage, "the operator's default image (AIDER_BOT_DEFAULT_IMAGE)"],
    [{}, defaultImage, "the operator's default image (AIDER_BOT_DEFAULT_IMAGE)"],
  ])("%j → %s", (inputs, image, source) => {
    expect(chooseImage({ ...inputs, defaultImage })).toEqual({ image, source, notes: [] });
  });

  it("lets the operator's table override and extend the defaults, exact versions first", () => {
    const table = { "python:3.12": "registry.internal/python:3.12-ci", node: "registry.internal/node:{version}-ci" };
    expect(chooseImage({ toolchain: { python: "3.12" }, table, defaultImage }).image).toBe(
      "registry.internal/python:3.12-ci",
    );
    expect(chooseImage({ toolchain: { python: "3.11" }, table, defaultImage }).image).toBe(
      DEFAULT_TOOLCHAIN_IMAGES.python?.replace("{version}", "3.11"),
    );
    expect(chooseImage({ toolchain: { node: "18" }, table, defaultImage }).image).toBe("registry.internal/node:18-ci");
  });

  it("passes over a name that is not an image reference (an option, a space, a shell word) and says so", () => {
    const choice = chooseImage({
      configImage: "--privileged",
      devcontainerImage: "python:3.12 ; rm -rf /",
      workflowImage: "node:20",
      defaultImage,
    });
    expect(choice.image).toBe("node:20");
    expect(choice.notes).toEqual([
      '`sandbox.image` in .github/aider.yml is not an image reference ("--privileged"); ignored',
      '`image` in .devcontainer/devcontainer.json is not an image reference ("python:3.12 ; rm -rf /"); ignored',
    ]);
  });

  it.each([
    ["python:3.12", true],
    ["docker.io/library/python:3.12-slim", true],
    ["localhost:5000/team/img", true],
    [`ghcr.io/a/b@sha256:${"a".repeat(64)}`, true],
    ["-v", false],
    ["Python:3", false],
    ["a b", false],
    ["", false],
  ])("isImageReference(%j) is %s", (ref, ok) => {
    expect(isImageReference(ref)).toBe(ok);
  });
});

describe("readDevcontainerImage", () => {
  it("reads `image` from JSON with comments and trailing commas", () => {
    const text = `// the dev container
{
  /* prebuilt */ "name": "py // not a comment",
  "image": "mcr.microsoft.com/devcontainers/python:3.12", // the image
  "features": { "a": 1, },
}`;
    expect(readDevcontainerImage(text)).toEqual({ image: "mcr.microsoft.com/devcontainers/python:3.12" });
    expect(JSON.parse(stripJsonc(text)).name).toBe("py // not a comment");
  });

  it("never builds: a Dockerfile or compose devcontainer gives a note saying to set sandbox.image", () => {
    expect(readDevcontainerImage('{ "build": { "dockerfile": "Dockerfile" } }').note).toMatch(
      /builds its image .* set `sandbox.image`/,
    );
    expect(readDevcontainerImage('{ "dockerComposeFile": "compose.yml" }').note).toMatch(/builds its image/);
  });

  it("says when the file is not JSON, and gives nothing without an image", () => {
    expect(readDevcontainerImage("{ nope").note).toMatch(/not valid JSON/);
    expect(readDevcontainerImage("[1]").note).toMatch(/not an object/);
    expect(readDevcontainerImage('{ "name": "x" }')).toEqual({});
  });
});

import nock from "nock";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { containerTargetFor, readDefaultBranchDevcontainer } from "../../src/app/container-target.js";
import { issueTarget, prTarget, runRequest } from "../../testkit/builders/run-fixtures.js";
import { GITHUB_API as API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const env = { defaultImage: "localhost/default:1", toolchainImages: {} };
const pr = runRequest({ owner: "acme", repo: "web", defaultBranch: "main", target: prTarget({ number: 7 }) });
const FILE = "/repos/acme/web/contents/.devcontainer%2Fdevcontainer.json";

describe("the devcontainer image on a pull request's run", () => {
  useStrictNock(nock);
  let checkout: string;
  beforeAll(() => {
    // The pull request's checkout has no devcontainer: what counts is the default branch's.
    checkout = mkdtempSync(path.join(os.tmpdir(), "aider-bot-ct-"));
  });
  afterAll(() => rmSync(checkout, { recursive: true, force: true }));

  it("is read from the default branch through the contents API, and chosen", async () => {
    nock(API)
      .get(FILE)
      .query({ ref: "main" })
      .reply(200, '{ // the team\'s image\n "image": "mcr.microsoft.com/devcontainers/python:3.12", }\n', {
        "content-type": "text/plain",
      });
    const found = await readDefaultBranchDevcontainer(pr, testOctokit());
    expect(found.text).toContain("devcontainers/python:3.12");
    const target = containerTargetFor(pr, checkout, env, {
      toolchain: { python: "3.11" },
      ...(found.text !== undefined ? { devcontainerJson: found.text } : {}),
    });
    expect(target).toMatchObject({
      image: "mcr.microsoft.com/devcontainers/python:3.12",
      imageSource: "`image` in .devcontainer/devcontainer.json",
    });
  });

  it("is absent when the default branch has none (404): the toolchain's image", async () => {
    nock(API).get(FILE).query({ ref: "main" }).reply(404, { message: "Not Found" });
    const found = await readDefaultBranchDevcontainer(pr, testOctokit());
    expect(found).toEqual({});
    expect(containerTargetFor(pr, checkout, env, { toolchain: { python: "3.11" } }).image).toBe(
      "docker.io/library/python:3.11",
    );
  });

  it("says why when the default branch cannot be read, and falls back", async () => {
    nock(API).get(FILE).query({ ref: "main" }).reply(500, { message: "boom" });
    const found = await readDefaultBranchDevcontainer(pr, testOctokit());
    expect(found.text).toBeUndefined();
    expect(found.note).toMatch(/devcontainer\.json of the default branch could not be read .*its image was not used/);
  });

  it("an issue's run makes no API call (its checkout is the default branch)", async () => {
    const issue = { ...pr, target: issueTarget({ number: 1, title: "t" }) };
    expect(await readDefaultBranchDevcontainer(issue, testOctokit())).toEqual({});
  });
});

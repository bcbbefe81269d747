import path from "node:path";
import pino from "pino";
import { mirrorPlace, type ExecuteRunDeps } from "../../src/app/execute-run.js";
import { issueTarget, prTarget, runRequest } from "../../testkit/builders/run-fixtures.js";

const issue = runRequest({ installationId: 7, target: issueTarget() });
const pull = (isFork: boolean) => runRequest({ installationId: 7, target: prTarget({ isFork }) });
const deps = (env: ExecuteRunDeps["env"]) => ({ env, logger: pino({ level: "silent" }) }) as unknown as ExecuteRunDeps;
const on = { workDir: undefined, cacheDir: undefined, mapThreads: undefined };

describe("which runs make their checkout from the repository's mirror", () => {
  it("issues and same-repository pull requests do, in the cache dir, kept apart by installation", () => {
    expect(mirrorPlace(issue, deps(on), "/cache")).toMatchObject({
      root: path.join("/cache", "git-mirrors"),
      scope: "7",
    });
    expect(mirrorPlace(pull(false), deps({ ...on, gitMirrors: true, sandbox: "auto" }), "/cache")).not.toBeNull();
  });

  it("a fork's branch, an undo, mirrors turned off, or repository commands without a sandbox do not", () => {
    expect(mirrorPlace(pull(true), deps(on), "/cache")).toBeNull();
    expect(mirrorPlace({ ...issue, verb: "undo" }, deps(on), "/cache")).toBeNull();
    expect(mirrorPlace(issue, deps({ ...on, gitMirrors: false }), "/cache")).toBeNull();
    expect(mirrorPlace(issue, deps({ ...on, sandbox: "off" }), "/cache")).toBeNull();
  });
});

import os from "node:os";
import pino from "pino";
import { warmWhileCloning } from "../../src/compose/compose-run.js";
import type { Exec } from "../../src/exec/types.js";

const REPO = { owner: "acme", repo: "widgets" };

describe("what a run starts while its branch is cloned", () => {
  function checkExec(): { exec: Exec; prepared: () => number } {
    let prepared = 0;
    const exec: Exec = {
      run: () => Promise.reject(new Error("no command runs while cloning")),
      prepare: async () => {
        prepared += 1;
      },
    };
    return { exec, prepared: () => prepared };
  }

  it("a run that runs checks gets its check exec ready for the first command; ask, plan and undo do not", () => {
    for (const [verb, expected] of [
      ["run", 1],
      ["ask", 0],
      ["plan", 0],
      ["undo", 0],
    ] as const) {
      const { exec, prepared } = checkExec();
      warmWhileCloning({ logger: pino({ level: "silent" }), checkExec: exec, cacheRoot: os.tmpdir() })({
        verb,
        ...REPO,
      });
      expect([verb, prepared()]).toEqual([verb, expected]);
    }
  });

  it("a check exec without prepare (a plain exec) is left alone", () => {
    const exec: Exec = { run: () => Promise.reject(new Error("unused")) };
    expect(() =>
      warmWhileCloning({ logger: pino({ level: "silent" }), checkExec: exec, cacheRoot: os.tmpdir() })({
        verb: "run",
        ...REPO,
      }),
    ).not.toThrow();
  });
});

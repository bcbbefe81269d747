import type { Exec, ExecRequest } from "../../src/exec/types.js";
import { testExec } from "../helpers/test-exec.js";
import { runAppOnPullRequest, useAppPrRig } from "../helpers/app-pr-run.js";

/** The fixed cost of an ordinary pull-request run, in git processes (see `npm run bench overhead`). */
const MAX_GIT_PROCESSES = 8;

/** An exec that records the arguments of every `git` process started through it. */
function countingExec(inner: Exec, calls: string[][]): Exec {
  return {
    ...inner,
    run: (req: ExecRequest) => {
      if (req.command === "git") calls.push([...(req.args ?? [])]);
      return inner.run(req);
    },
  } as Exec;
}

/** A git command line from its subcommand on (the runner's `-c key=value` options left out). */
function shown(args: readonly string[]): string {
  let i = 0;
  while (args[i] === "-c") i += 2;
  return args.slice(i).join(" ");
}

describe("an ordinary pull-request run's git processes", () => {
  const rig = useAppPrRig("run-git-processes-");

  it(`clone, map, commit and publish in at most ${MAX_GIT_PROCESSES} git processes`, async () => {
    const files: Record<string, string> = {
      "package.json": '{ "name": "widgets", "type": "module" }\n',
      "src/fetch-client.ts": "export interface FetchOptions {\n  timeoutMs?: number;\n}\n",
      ".github/aider.yml": 'test: "true"\nmax_reflections: 1\n',
    };
    for (let i = 0; i < 30; i++) files[`src/mod${i % 4}/part${i}.ts`] = `export const part${i} = ${i};\n`;
    const { llm } = rig();
    llm.push(
      "I need to edit the fetch client:\n\nsrc/fetch-client.ts\n",
      "Add a retries option.\n\nsrc/fetch-client.ts\n```ts\n<<<<<<< SEARCH\n  timeoutMs?: number;\n=======\n  timeoutMs?: number;\n  retries?: number;\n>>>>>>> REPLACE\n```\n",
      "feat: add a retries option",
    );
    const calls: string[][] = [];
    const outcome = await runAppOnPullRequest(rig(), {
      files,
      // Base runs (the checks on the base commit, beside the model's first answer) are a separate, parallel cost: off.
      config: { test: "true", max_reflections: 1, baseline: "off" },
      message: "add a retries option to the fetch client",
      exec: countingExec(testExec({ sourceEnv: process.env }), calls),
      // The repository's commands are not git's: they run through an exec of their own, uncounted.
      checkExec: testExec({ sourceEnv: process.env }),
    });
    expect(outcome.kind).toBe("pushed");
    const list = calls.map(shown);
    // The list is in the message, so a regression says which process came back.
    if (list.length > MAX_GIT_PROCESSES)
      throw new Error(`${list.length} git processes (at most ${MAX_GIT_PROCESSES}):\n${list.join("\n")}`);
    expect(list.length).toBeLessThanOrEqual(MAX_GIT_PROCESSES);
    // The commit went to GitHub's API as git made it (commit-ahead): nothing read it back afterwards.
    expect(list.filter((l) => l.startsWith("diff-tree"))).toEqual([]);
  });

  it("with the branch fetched into the mirror ahead of it (at triage), the run starts no fetch of its own", async () => {
    const { llm } = rig();
    llm.push(
      "I need to edit the file:\n\nsrc/a.ts\n",
      "src/a.ts\n```ts\n<<<<<<< SEARCH\nexport const a = 1;\n=======\nexport const a = 2;\n>>>>>>> REPLACE\n```\n",
      "feat: a is 2",
    );
    const calls: string[][] = [];
    const ahead: string[][] = [];
    const outcome = await runAppOnPullRequest(rig(), {
      files: { "src/a.ts": "export const a = 1;\n" },
      config: { test: "true", max_reflections: 1, baseline: "off" },
      message: "make a 2",
      exec: countingExec(testExec({ sourceEnv: process.env }), calls),
      checkExec: testExec({ sourceEnv: process.env }),
      fetchAhead: countingExec(testExec({ sourceEnv: process.env }), ahead),
    });
    expect(outcome.kind).toBe("pushed");
    expect(ahead.map((a) => shown(a).split(" ")[0])).toEqual(["fetch"]);
    const list = calls.map(shown);
    expect(list.filter((l) => l.startsWith("fetch") || l.startsWith("clone"))).toEqual([]);
    expect(list.some((l) => l.startsWith("read-tree"))).toBe(true);
  });
});

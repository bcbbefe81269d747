import type { Exec, ExecRequest } from "../../src/exec/types.js";
import type { RecordedRequest } from "../../testkit/scripted-llm-server.js";
import { fileOnBranch } from "../../testkit/seed-repo.js";
import { runAppOnPullRequest, useAppPrRig } from "../helpers/app-pr-run.js";
import { testExec } from "../helpers/test-exec.js";
import { pollUntil } from "../helpers/wait-until.js";

/** The subcommand of a git command line (after the runner's `-c key=value` options). */
function subcommand(args: readonly string[]): string {
  let i = 0;
  while (args[i] === "-c") i += 2;
  return args[i] ?? "";
}

describe("an ordinary pull-request run's first round while its checkout is written", () => {
  const rig = useAppPrRig("first-round-early-");

  it("asks the model before read-tree writes the files, with the map git's side gives, and pushes the right change", async () => {
    const files: Record<string, string> = {
      "package.json": '{ "name": "widgets", "type": "module" }\n',
      "src/fetch-client.ts": "export interface FetchOptions {\n  timeoutMs?: number;\n}\n",
      // The map reads `.aiderignore` too: from git's objects while the files are not written.
      ".aiderignore": "generated/\n",
      "generated/schema.ts": "export interface GeneratedSchema {\n  id: number;\n}\n",
    };
    for (let i = 0; i < 12; i++)
      files[`src/mod${i % 3}/part${i}.ts`] = `export function part${i}(): number {\n  return ${i};\n}\n`;
    const { llm, fake } = rig();
    let firstRequest: RecordedRequest | null = null;
    llm.push(
      (request) => {
        firstRequest = request;
        return "I need to edit the fetch client:\n\nsrc/fetch-client.ts\n";
      },
      "Add a retries option.\n\nsrc/fetch-client.ts\n```ts\n<<<<<<< SEARCH\n  timeoutMs?: number;\n=======\n  timeoutMs?: number;\n  retries?: number;\n>>>>>>> REPLACE\n```\n",
      "feat: add a retries option",
    );
    const events: string[] = [];
    const inner = testExec({ sourceEnv: process.env });
    // read-tree (the files' writing) is held until the model has been asked. A run that asks only once the files are
    // written never is: the hold then ends at the bound, and the order below says so.
    const exec = {
      ...inner,
      run: async (req: ExecRequest) => {
        if (req.command === "git" && subcommand(req.args ?? []) === "read-tree") {
          const asked = await pollUntil(() => firstRequest !== null, 10_000);
          events.push(asked ? "read-tree after the model's first request" : "read-tree with no request made");
        }
        return inner.run(req);
      },
    } as Exec;

    const outcome = await runAppOnPullRequest(rig(), {
      files,
      config: { test: "true", max_reflections: 1, baseline: "off" },
      message: "add a retries option to the fetch client",
      exec,
      checkExec: testExec({ sourceEnv: process.env }),
    });

    expect(events).toEqual(["read-tree after the model's first request"]);
    expect(outcome.kind).toBe("pushed");
    // The first request's map is the checkout's: its files, less what `.aiderignore` leaves out.
    const first = JSON.stringify((firstRequest as RecordedRequest | null)?.body.messages ?? []);
    expect(first).toContain("src/fetch-client.ts");
    expect(first).toContain("part7");
    expect(first).not.toContain("GeneratedSchema");
    // The edit made once the files were written is the one pushed.
    const repo = fake.state.repo("acme", "widgets")!;
    expect(await fileOnBranch(fake, repo, "feature", "src/fetch-client.ts")).toBe(
      "export interface FetchOptions {\n  timeoutMs?: number;\n  retries?: number;\n}\n",
    );
  });
});

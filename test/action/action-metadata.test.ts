import { readFile } from "node:fs/promises";
import path from "node:path";
import { Ajv } from "ajv";
import { parse } from "yaml";

const ROOT = path.resolve(".");
const load = async (rel: string) => readFile(path.join(ROOT, rel), "utf8");

async function validator() {
  const schema = JSON.parse(await load("test/fixtures/action/action-metadata.schema.json")) as object;
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
}

describe("action.yml", () => {
  it("is valid against the Actions metadata schema", async () => {
    const validate = await validator();
    const action = parse(await load("action.yml")) as unknown;
    const ok = validate(action);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("has the documented inputs and outputs, and passes every input to the run step", async () => {
    const action = parse(await load("action.yml")) as {
      inputs: Record<string, { default?: string }>;
      outputs: Record<string, { value: string }>;
      runs: { using: string; steps: { id?: string; env?: Record<string, string>; run?: string }[] };
    };
    for (const name of [
      "openai-base-url",
      "openai-api-key",
      "model",
      "weak-model",
      "edit-format",
      "trigger",
      "label",
      "config-path",
      "github-token",
      "message",
      "anthropic-api-key",
      "azure-openai-endpoint",
      "azure-openai-api-key",
      "openai-api-version",
      "aws-region",
      "vertex-region",
      "vertex-project-id",
    ]) {
      expect(action.inputs).toHaveProperty([name]);
    }
    expect(action.inputs["github-token"]!.default).toBe("${{ github.token }}");
    expect(action.inputs["config-path"]!.default).toBe(".github/aider.yml");
    expect(Object.keys(action.outputs).sort()).toEqual(["commit-sha", "cost", "outcome", "pr-number", "tokens"]);
    const step = action.runs.steps.find((s) => s.id === "run")!;
    expect(step.run).toContain('node "$AIDER_BOT_ENTRY" action');
    // A composite action gets no INPUT_* variables on its own: each input must be handed over explicitly.
    for (const name of Object.keys(action.inputs)) {
      expect(step.env?.[`INPUT_${name.toUpperCase().replace(/-/g, "_")}`]).toBe(`\${{ inputs.${name} }}`);
    }
    for (const [name, output] of Object.entries(action.outputs))
      expect(output.value).toBe(`\${{ steps.run.outputs.${name} }}`);
    // The model key only reaches the step that needs it, never the build (npm ci runs package scripts).
    const build = action.runs.steps.find((s) => s.id !== "run")!;
    expect(JSON.stringify(build)).not.toContain("openai-api-key");
  });

  it.each([
    ["no description", (a: Record<string, any>) => delete a.description], // eslint-disable-line @typescript-eslint/no-explicit-any
    ["an input without a description", (a: Record<string, any>) => (a.inputs.model = { default: "x" })], // eslint-disable-line @typescript-eslint/no-explicit-any
    ["a composite output without value", (a: Record<string, any>) => delete a.outputs.outcome.value], // eslint-disable-line @typescript-eslint/no-explicit-any
    ["a run step without shell", (a: Record<string, any>) => delete a.runs.steps[1].shell], // eslint-disable-line @typescript-eslint/no-explicit-any
    ["an unknown runtime", (a: Record<string, any>) => (a.runs = { using: "node8", main: "index.js" })], // eslint-disable-line @typescript-eslint/no-explicit-any
    ["a JavaScript action without main", (a: Record<string, any>) => (a.runs = { using: "node20" })], // eslint-disable-line @typescript-eslint/no-explicit-any
    ["an unknown top-level key", (a: Record<string, any>) => (a.entrypoint = "x")], // eslint-disable-line @typescript-eslint/no-explicit-any
    ["a bad branding colour", (a: Record<string, any>) => (a.branding.color = "pink")], // eslint-disable-line @typescript-eslint/no-explicit-any
    ["an input id with a space", (a: Record<string, any>) => (a.inputs["bad id"] = { description: "x" })], // eslint-disable-line @typescript-eslint/no-explicit-any
  ])("the schema rejects %s", async (_name, breakIt) => {
    const validate = await validator();
    const action = parse(await load("action.yml")) as Record<string, unknown>;
    breakIt(action);
    expect(validate(action)).toBe(false);
  });
});

/** The example workflows of the Action's guide (docs/github-action.md). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- on its own line: a formatter moves a trailing comment after `{`
async function exampleWorkflows(): Promise<{ source: string; workflows: Record<string, any>[] }> {
  const blocks = (text: string) =>
    [...text.matchAll(/```ya?ml\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .filter((b) => /uses: \S*aider-bot@/.test(b) && /^jobs:/m.test(b));
  const source = "docs/github-action.md";
  const text = await load(source);
  return { source, workflows: blocks(text).map((b) => parse(b) as Record<string, any>) }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe("the Action guide's example workflows", () => {
  it("are valid YAML: a comment trigger, a label trigger and a nightly schedule", async () => {
    const { workflows } = await exampleWorkflows();
    expect(workflows.length).toBeGreaterThanOrEqual(3);
    const triggers = workflows.map((w) =>
      Object.keys(w.on ?? {})
        .sort()
        .join(","),
    );
    expect(triggers.some((t) => t.includes("issue_comment"))).toBe(true);
    expect(triggers.some((t) => t.includes("issues"))).toBe(true);
    expect(triggers.some((t) => t.includes("schedule"))).toBe(true);
  });

  it("each grant the documented permissions, run one job per PR/issue at a time, and take the key from a secret", async () => {
    const { workflows } = await exampleWorkflows();
    for (const w of workflows) {
      const jobs = Object.values(w.jobs as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(jobs.length).toBeGreaterThan(0);
      for (const job of jobs) {
        const permissions = { ...(w.permissions ?? {}), ...(job.permissions ?? {}) };
        expect(permissions).toMatchObject({ contents: "write", "pull-requests": "write", issues: "write" });
        expect(typeof job["runs-on"]).toBe("string");
        const concurrency = job.concurrency ?? w.concurrency;
        const group = typeof concurrency === "string" ? concurrency : concurrency?.group;
        expect(group).toEqual(expect.any(String));
        if (!("schedule" in w.on)) expect(group).toMatch(/github\.event\.(issue|pull_request)\.number/);
        const steps = job.steps as { uses?: string; with?: Record<string, string> }[];
        const checkout = steps.find((s) => s.uses?.startsWith("actions/checkout@"));
        expect(checkout).toBeDefined();
        const bot = steps.find((s) => /aider-bot@/.test(s.uses ?? ""))!;
        expect(bot.with?.["openai-api-key"]).toMatch(/^\$\{\{ secrets\.[A-Z_]+ \}\}$/);
      }
    }
  });
});

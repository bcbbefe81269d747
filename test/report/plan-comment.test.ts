import {
  approvalTicked,
  planIntact,
  readPlanRecord,
  renderPlanComment,
  renderSteps,
  untickApproval,
  type PlanRecord,
} from "../../src/report/plan-comment.js";

const rec: PlanRecord = {
  id: "job-1",
  sha: "abcdef1234567890",
  state: "active",
  text: "Files: `a.ts`\n\n1. In `a.ts`, add x.\n2. Test it.",
  requester: "ann",
  model: "gpt-4o",
  request: "add x <script>",
  done: [],
};

describe("plan comment", () => {
  it("renders the steps as a task list with an approve box, and reads its record back", () => {
    const body = renderPlanComment(rec, { command: "aider", head: "<!-- aider-bot:run:job-1 -->" });
    expect(body.startsWith("<!-- aider-bot:run:job-1 -->\n<!-- aider-bot:plan:")).toBe(true);
    expect(body).toContain("- [ ] **1.** In `a.ts`, add x.");
    expect(body).toContain("- [ ] **2.** Test it.");
    expect(body).toContain("- [ ] **Approve and run this plan**");
    expect(body).toContain("made on `abcdef1`");
    expect(body).toContain("> add x &lt;script&gt;");
    expect(readPlanRecord(body)).toEqual(rec);
  });

  it.each([
    {
      state: "approved" as const,
      has: "- [x] **Approve and run this plan** — approved by @bo",
      not: "- [ ] **Approve",
    },
    { state: "superseded" as const, has: "replaced by a newer one", not: "**Approve and run" },
    { state: "dropped" as const, has: "dropped by @bo", not: "**Approve and run" },
  ])("a plan $state says so and offers no box to tick", ({ state, has, not }) => {
    const body = renderPlanComment({ ...rec, state, by: "bo", done: [0] }, { command: "aider" });
    expect(body).toContain(has);
    expect(body).not.toContain(not);
    expect(body).toContain("- [x] **1.**");
  });

  it("renders bullet plans and plans without a list as task lists too", () => {
    expect(renderSteps("- edit `a`\n- test", new Set([1]))).toBe("- [ ] edit `a`\n- [x] test");
    expect(renderSteps("Just do it.", new Set())).toBe("Just do it.\n\n- [ ] Carry out the plan above");
  });

  it("knows a tick of the approve box from other edits", () => {
    const body = renderPlanComment(rec, { command: "aider" });
    const ticked = body.replace("- [ ] **Approve", "- [x] **Approve");
    expect(approvalTicked(body, ticked)).toBe(true);
    expect(approvalTicked(ticked, ticked)).toBe(false);
    expect(approvalTicked(ticked, body)).toBe(false);
    expect(approvalTicked(body, body.replace("- [ ] **1.**", "- [x] **1.**"))).toBe(false);
    expect(untickApproval(ticked)).toBe(body);
  });

  it("sees a plan rewritten under its marker, but not ticks", () => {
    const body = renderPlanComment(rec, { command: "aider" });
    expect(planIntact(body, rec)).toBe(true);
    expect(planIntact(body.replace("- [ ] **2.**", "- [x] **2.**"), rec)).toBe(true);
    expect(planIntact(body.replace("add x.", "delete everything."), rec)).toBe(false);
    expect(planIntact("no plan here", rec)).toBe(false);
  });

  it("reads no record from a look-alike marker", () => {
    expect(readPlanRecord("<!-- aider-bot:plan:bm90IGpzb24= -->")).toBeNull();
    expect(
      readPlanRecord(
        `<!-- aider-bot:plan:${Buffer.from(JSON.stringify({ ...rec, state: "running" })).toString("base64")} -->`,
      ),
    ).toBeNull();
  });
});

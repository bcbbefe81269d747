import { parsePlan, stepsDone } from "../../coder/plan/parse-plan.js";
import type { ApprovedPlan } from "../run-request.js";

export interface PlanProgress {
  /** Files a round of the editor wrote: the steps they complete are ticked. */
  onEdits(written: readonly string[]): void;
  /** The run ended: every step is ticked when it succeeded; the ticks so far stay otherwise. Waits for the writes. */
  finish(success: boolean): Promise<void>;
}

/**
 * The live checklist of an approved plan: as the editor's edits apply, the steps whose files were all
 * edited are ticked on the plan comment (see `stepsDone`); on success every step is. Writes go one after another and
 * only when the ticked set grew; a failed write is reported to `onError` and does not stop the run.
 */
export function createPlanProgress(
  plan: ApprovedPlan,
  update: (done: number[]) => Promise<void>,
  onError: (error: unknown) => void,
): PlanProgress {
  const parsed = parsePlan(plan.text);
  const edited = new Set<string>();
  let shown = 0;
  let chain: Promise<void> = Promise.resolve();
  const write = (done: number[]) => {
    if (done.length <= shown) return;
    shown = done.length;
    chain = chain.then(() => update(done)).catch(onError);
  };
  return {
    onEdits(written) {
      for (const p of written) edited.add(p);
      write(stepsDone(parsed, edited, false));
    },
    async finish(success) {
      if (success) write(stepsDone(parsed, edited, true));
      await chain;
    },
  };
}

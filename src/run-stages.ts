/**
 * The one set of names a run is told by: its phases (the folders of `src/run/`) and the stages it shows as it goes.
 * The status comment's stage line, the run's log lines (`stage`, `phase`), the `aider_bot_run_stage_seconds{stage}`
 * metric and docs/architecture.md all use these lists, so a stage is called the same everywhere. A root file of
 * `src/` (a leaf): the metrics, which import no folder, read it too.
 */

/** The phases of a run, in order; each is a folder of `src/run/` (`verify` is publish's first, pure step). */
export const RUN_PHASES = ["prepare", "code", "publish", "report"] as const;
export type RunPhase = (typeof RUN_PHASES)[number];

/** The stages a run shows in its status comment, in order. */
export const RUN_STAGES = ["queued", "cloning", "mapping", "thinking", "applying", "lint", "tests", "pushing"] as const;
export type RunStage = (typeof RUN_STAGES)[number];

/** The phase each stage belongs to; `queued` is before the run starts (triage posts it). */
export const PHASE_OF_STAGE: Readonly<Record<RunStage, RunPhase | null>> = {
  queued: null,
  cloning: "prepare",
  mapping: "code",
  thinking: "code",
  applying: "code",
  lint: "code",
  tests: "code",
  pushing: "publish",
};

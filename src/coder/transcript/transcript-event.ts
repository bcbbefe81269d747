import type { ChatMessage } from "../../llm/types.js";

/**
 * One thing that happened in a run, as the transcript records it: what the model was sent and answered,
 * what became of its edits, and every check with its output. `phase` names the coder of a two-step run ("architect"
 * plans, "editor" edits); a plain run has none.
 */
export type TranscriptEvent =
  | { kind: "request"; phase?: string; round: number; model: string; messages: ChatMessage[] }
  | {
      kind: "reply";
      phase?: string;
      round: number;
      text: string;
      finishReason?: string;
      /** `cacheRead`/`cacheWrite`: of the prompt tokens, those the provider's prompt cache served or stored. */
      tokens?: { prompt: number; completion: number; cacheRead?: number; cacheWrite?: number };
    }
  | { kind: "model-error"; phase?: string; round: number; message: string }
  | {
      kind: "edits";
      phase?: string;
      round: number;
      written: string[];
      deleted: string[];
      failures: { path: string; message: string }[];
      reflection: string | null;
    }
  | {
      kind: "check";
      phase?: string;
      round: number;
      check: "syntax" | "lint" | "test" | "setup";
      command: string;
      ok: boolean;
      exitCode?: number | null;
      output: string;
    }
  | { kind: "note"; phase?: string; round: number; text: string };

/** Where the coder loop reports its transcript events (optional in the coder's deps). */
export type TranscriptSink = (event: TranscriptEvent) => void;

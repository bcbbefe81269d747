import type { TranscriptEvent, TranscriptSink } from "./transcript-event.js";

export interface TranscriptRecorder {
  /** The sink to hand the coder loop; `phase` tags every event it records (the two steps of architect mode). */
  sink(phase?: string): TranscriptSink;
  /** Everything recorded so far, in order. */
  events(): readonly TranscriptEvent[];
}

/**
 * A pure recorder: it keeps the events it is given, nothing else (no I/O, no clock). Messages are copied so a later
 * change of the coder's own arrays cannot rewrite what was recorded.
 * `const r = createTranscriptRecorder(); deps.onTranscript = r.sink(); … renderTranscript(r.events())`
 */
export function createTranscriptRecorder(): TranscriptRecorder {
  const events: TranscriptEvent[] = [];
  return {
    sink: (phase) => (event) => {
      const copy =
        event.kind === "request" ? { ...event, messages: event.messages.map((m) => ({ ...m })) } : { ...event };
      events.push(phase && !copy.phase ? { ...copy, phase } : copy);
    },
    events: () => events,
  };
}

import { Transform } from "node:stream";
import { pino, stdSerializers, type Logger } from "pino";
import type { SecretRedactor } from "./redact-secrets.js";

/** Where pino writes a finished line. */
export interface LineSink {
  write(line: string): unknown;
}

/**
 * `sink` with every line passed through the redactor first. Redacting the finished line (not the message or the
 * object before serialisation) covers the message, child bindings, error messages and stacks alike, in one place.
 */
function redactingSink(sink: LineSink, redactor: SecretRedactor): LineSink {
  return { write: (line) => sink.write(redactor.redact(line)) };
}

/**
 * An error for the log without the webhook payload or request it may carry: @octokit/webhooks errors hold the
 * whole event (`event.payload`), Octokit request errors the request (`request.body`). A log line says what failed,
 * never what was sent.
 */
function errorSerializer(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const out: Record<string, unknown> = { ...stdSerializers.err(err) };
  const event = out.event;
  delete out.event;
  delete out.payload;
  delete out.request;
  delete out.response;
  if (event && typeof event === "object") out.event = eventSerializer(event);
  return out;
}

/**
 * A logged `event` as its id and name only. Probot logs every event it receives at debug level as `{ event }`,
 * payload included ("Webhook received"); our own lines log `event` as a name (a string), kept as is.
 */
function eventSerializer(event: unknown): unknown {
  if (!event || typeof event !== "object") return event;
  const e = event as { id?: unknown; name?: unknown };
  return { id: e.id, name: e.name };
}

/**
 * A pino logger that redacts every line and keeps payloads out of errors and events, formatted as Probot's own logger is
 * (pretty, or JSON with `format: "json"`). Give it to Probot as `log`.
 */
export async function createRedactingLogger(options: {
  level: string;
  redactor: SecretRedactor;
  format?: "json" | "pretty";
  sink?: LineSink;
}): Promise<Logger> {
  let sink = options.sink;
  if (!sink) {
    // JSON lines as they are; pretty lines through Probot's formatter, loaded only then (its pino-pretty costs a job
    // process ~70 ms to import).
    const transform =
      options.format === "json"
        ? jsonLines()
        : await (await import("@probot/pino")).getTransformStream({ logFormat: "pretty" });
    transform.pipe(process.stdout);
    sink = transform;
  }
  return pino(
    { level: options.level, name: "probot", serializers: { err: errorSerializer, event: eventSerializer } },
    redactingSink(sink, options.redactor),
  );
}

/** One JSON log line per chunk, as Probot's transform writes them in its JSON format. */
function jsonLines(): Transform {
  return new Transform({
    objectMode: true,
    transform(chunk: Buffer | string, _encoding, done) {
      done(null, `${chunk.toString().trim()}\n`);
    },
  });
}

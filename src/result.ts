/**
 * The one shape for expected failures: a refusal, a malformed input, an unreachable service the caller reports
 * to the user. `reason` is a stable word callers branch on; `message` says what happened and what to do, in words
 * fit for the user. Bugs still throw. Outcomes with more than two ways to end (a run's outcome, a decision) keep
 * their own `kind` unions; this is for "worked, or here is why not".
 *
 * @example
 * function parsePort(raw: string): Result<number, "not-a-port"> {
 *   const port = Number(raw);
 *   return Number.isInteger(port) && port >= 0 ? ok(port) : fail("not-a-port", `\`${raw}\` is not a port number.`);
 * }
 */
export type Result<T, R extends string = string> = Success<T> | Failure<R>;

export interface Success<T> {
  ok: true;
  value: T;
}

export interface Failure<R extends string = string> {
  ok: false;
  reason: R;
  message: string;
}

export function ok<T>(value: T): Success<T> {
  return { ok: true, value };
}

export function fail<R extends string>(reason: R, message: string): Failure<R> {
  return { ok: false, reason, message };
}

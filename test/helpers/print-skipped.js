/**
 * jest globalTeardown: ends the run with the summary of the tests skipped because a tool is missing here, left by
 * test/helpers/needs-reporter.js. It runs after jest's own summary, so this is the last thing the run prints.
 */
import process from "node:process";
import { SKIPPED_SUMMARY } from "./skip-note.js";

export default function printSkipped() {
  const summary = globalThis[SKIPPED_SUMMARY];
  if (summary) process.stderr.write(`\n${summary}\n`);
}

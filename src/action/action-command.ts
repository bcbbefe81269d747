import { appendFile, readFile } from "node:fs/promises";
import { createRedactingLogger } from "../security/create-redacting-logger.js";
import { ActionSetupError, readActionEnv, type ActionEnv } from "../config/action-env.js";
import {
  actionOutputs,
  escapeCommandData,
  formatOutputFile,
  renderSummary,
  type ActionResult,
} from "./action-outputs.js";
import { actionRedactor, runAction } from "./run-action.js";

const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `aider-bot action`: one GitHub Actions step. Exit code 1 only for setup problems (an `::error::` line says what
 * to change); how the run went is in the outputs and the job summary.
 */
export async function actionCommand(): Promise<number> {
  let env: ActionEnv;
  let payload: unknown;
  try {
    env = readActionEnv();
    payload = JSON.parse(await readFile(env.eventPath, "utf8"));
  } catch (error) {
    const message =
      error instanceof ActionSetupError
        ? error.message
        : `Cannot read the event payload at GITHUB_EVENT_PATH: ${error instanceof Error ? error.message : String(error)}`;
    say(`::error title=aider-bot setup::${escapeCommandData(message)}`);
    return 1;
  }
  // The step's one redactor, built before any writer; its log lines go through it too. Logs go to stderr so they
  // never mix with workflow commands; Actions shows both.
  const redactor = actionRedactor(env);
  const logger = await createRedactingLogger({
    level: env.logLevel,
    redactor,
    format: "json",
    sink: { write: (line) => process.stderr.write(line) },
  });
  const abort = new AbortController();
  // The runner sends SIGINT, then SIGTERM, when the workflow run is cancelled: stop and report "cancelled".
  const onSignal = () => abort.abort(new Error("runner shutdown: the workflow run was cancelled"));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let result: ActionResult;
  try {
    result = await runAction(env, payload, { logger, redactor, signal: abort.signal });
  } catch (error) {
    if (error instanceof ActionSetupError) {
      say(`::error title=aider-bot setup::${escapeCommandData(error.message)}`);
      return 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    logger.error({ err: error }, "aider-bot action failed");
    say(`::warning title=aider-bot::${escapeCommandData(`The run stopped with an error: ${message}`)}`);
    result = { outcome: "error", reason: message, runs: [] };
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const outputs = actionOutputs(result);
  if (env.outputPath) await appendFile(env.outputPath, formatOutputFile(outputs));
  if (env.summaryPath) await appendFile(env.summaryPath, renderSummary(result));
  say(
    `aider-bot: ${outputs.outcome}${result.reason ? ` (${result.reason.split("\n")[0]})` : ""}${outputs["commit-sha"] ? ` ${outputs["commit-sha"]}` : ""}`,
  );
  logger.flush();
  return 0;
}

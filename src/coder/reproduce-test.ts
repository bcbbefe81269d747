import { checkCommandsOf } from "./check-commands.js";
import type { CoderDeps } from "./coder-deps.js";
import type { CoderOptions } from "./types.js";

/** Keep the end of the output: a test runner prints its failures and summary last. */
const MAX_OUTPUT_CHARS = 6_000;

/**
 * `fix-ci`: run the repository's test command once before the first model call, so the model starts from
 * the failure as it reproduces here and not only from CI's report. Setup commands run first (once for the whole run).
 * Returns the paragraph added to the request, and whether setup ran; null when there is no test command. The output
 * is treated like a check reflection's: the repository's own tool speaking about its code.
 */
export async function reproduceTest(
  deps: CoderDeps,
  options: CoderOptions,
): Promise<{ note: string; setupDone: boolean } | null> {
  const commands = checkCommandsOf({ ...options, autoTest: true });
  const test = commands.find((c) => c.kind === "test");
  if (!test) return null;
  const command = test.command;
  // Fail closed as runChecks does: the repository's commands never run outside the sandbox unless the operator said so.
  const mode = await deps.sandboxMode?.();
  if (mode?.startsWith("unavailable: "))
    return {
      note: `(\`${command}\` was not run before the edit: the sandbox cannot run on the app's host.)`,
      setupDone: false,
    };
  deps.onProgress?.({ stage: "test", round: 0, detail: `reproduce: ${command}` });
  for (const setup of commands.filter((c) => c.kind === "setup")) {
    // Nothing is edited yet: a setup command started with the run is taken as it is.
    const early = await deps.earlySetup?.take(setup, []);
    if (early) deps.workspace.invalidate?.();
    const report =
      early ??
      (await deps.runCheck({
        kind: "setup",
        command: setup.command,
        files: [],
        timeoutMs: options.commandTimeoutMs,
        ...(setup.cwd ? { cwd: setup.cwd } : {}),
      }));
    if (!report.ok)
      return {
        note: `The setup command \`${setup.command}\` failed before any change, so the failing tests could not be reproduced here:\n\n${fenced(report.output)}`,
        setupDone: true,
      };
  }
  const report = await deps.runCheck({
    kind: "test",
    command,
    files: [],
    timeoutMs: options.commandTimeoutMs,
    ...(test.cwd ? { cwd: test.cwd } : {}),
  });
  if (report.ok)
    return {
      note: `I ran \`${command}\` before any change and it passes here, so the failure may depend on CI's environment; rely on the "Failing checks" data.`,
      setupDone: true,
    };
  return {
    note: `I ran \`${command}\` before any change and it fails here too${report.timedOut ? " (it timed out)" : ""}:\n\n${fenced(report.output)}`,
    setupDone: true,
  };
}

function fenced(output: string): string {
  const text =
    output.length > MAX_OUTPUT_CHARS
      ? `[… ${output.length - MAX_OUTPUT_CHARS} characters before this cut …]\n${output.slice(-MAX_OUTPUT_CHARS)}`
      : output;
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}\n${text.trim()}\n${fence}`;
}

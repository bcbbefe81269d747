/**
 * setupFilesAfterEnv of `npm test`: with AIDER_BOT_TOOL_TRACE set (CI's main run, see scripts/tool-trace.mjs), notes
 * in that log when each test file starts, in which jest worker: `start <epoch ms> <worker pid> <test file>`. The
 * stand-ins of the tools the fresh-machine check hides note their runs there too, so CI's fresh-machine run can be
 * limited to the files that ran one. Without the variable it does nothing.
 */
import { appendFileSync } from "node:fs";
import process from "node:process";
import { expect } from "@jest/globals";

const log = process.env.AIDER_BOT_TOOL_TRACE;
if (log) appendFileSync(log, `start ${Date.now()} ${process.pid} ${expect.getState().testPath}\n`);

#!/usr/bin/env node
import { buildProgram } from "./build-program.js";
import { exitCodeFor } from "./exit-code.js";

const program = buildProgram();
try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}

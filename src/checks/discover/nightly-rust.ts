import type { CheckPlan, PlannedCommand } from "./types.js";

/** A nightly channel as CI names it: `nightly`, `nightly-2024-05-01`. */
const NIGHTLY = /^nightly(?:-\d{4}-\d{2}-\d{2})?$/;
/** A line whose tool is cargo or rustc, after any `VAR=value` assignments. */
const RUST_TOOL = /^((?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)*)(cargo|rustc)\b/;

/** Why a command runs with `RUSTC_BOOTSTRAP=1`. */
function nightlyNote(channel: string): string {
  return `CI builds this with the \`${channel}\` Rust toolchain; the bot sets \`RUSTC_BOOTSTRAP=1\` so that a stable toolchain (what the sandbox has when nightly cannot be installed) builds the nightly-only features (\`#![feature(…)]\`) this code uses too — on a nightly toolchain it changes nothing`;
}

/** Whether a script runs cargo or rustc somewhere (`cd serde && cargo build`, a line of a multi-line script). */
const RUNS_RUST = /(?:^|[\s;&|(])(?:cargo|rustc)\s/;

/**
 * The plan's commands that run cargo or rustc, when CI picks a nightly Rust toolchain, run with `RUSTC_BOOTSTRAP=1`.
 * Code written for nightly (`#![feature(test)]` benches, `cargo -Z minimal-versions`) fails on a stable compiler
 * before anything is checked, on the change and the base alike, so its check said nothing; stable compilers and cargo
 * accept it when told to. A command that already sets the variable is left as it is.
 */
export function bootstrapNightlyRust(plan: CheckPlan): void {
  const channel = plan.toolchain.rust?.trim();
  if (!channel || !NIGHTLY.test(channel)) return;
  const note = nightlyNote(channel);
  const bootstrap = (cmds: PlannedCommand[]): PlannedCommand[] =>
    cmds.map((c) => {
      const command = withBootstrap(c.command);
      return command === c.command ? c : { ...c, command, note: c.note ? `${c.note}; ${note}` : note };
    });
  plan.setup = bootstrap(plan.setup);
  plan.lint = bootstrap(plan.lint);
  plan.test = bootstrap(plan.test);
}

/** The command with `RUSTC_BOOTSTRAP=1` set for it: beside its own assignments, else exported before its script. */
export function withBootstrap(command: string): string {
  if (/\bRUSTC_BOOTSTRAP=/.test(command)) return command;
  const line = command.trim();
  const m = line.includes("\n") ? null : RUST_TOOL.exec(line);
  if (m) return `${m[1]}RUSTC_BOOTSTRAP=1 ${line.slice(m[1]!.length)}`;
  return RUNS_RUST.test(command) ? `export RUSTC_BOOTSTRAP=1; ${command}` : command;
}

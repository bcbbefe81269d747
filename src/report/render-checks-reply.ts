import { renderCheckPlanMarkdown } from "../checks/discover/render-check-plan.js";
import type { RepoConfig } from "../config/repo-config.js";
import { checkSettingsOf, resolveChecks, type ResolvedChecks } from "../run/prepare/resolve-checks.js";

/**
 * The reply to `/aider checks`: the commands a run here would use, read (through `reader`) from the DEFAULT branch
 * like the config, each with its source, what is left out and why, and how to change it. Runs nothing.
 */
export async function renderChecksReply(
  reader: Parameters<typeof resolveChecks>[1],
  defaultBranch: string,
  config: RepoConfig,
): Promise<string> {
  const resolved = await resolveChecks(checkSettingsOf(config), reader);
  return checksReplyBody(resolved, defaultBranch, config.trigger.command);
}

/** The reply's text for a resolved plan (pure). */
export function checksReplyBody(resolved: ResolvedChecks, branch: string, word: string): string {
  const head: Record<ResolvedChecks["origin"], string> = {
    config: "These are the commands `.github/aider.yml` names.",
    discovered: `\`.github/aider.yml\` names no commands, so I found these in \`${branch}\`'s workflows and manifests.`,
    mixed: `Keys set in \`.github/aider.yml\` win; the rest I found in \`${branch}\`'s workflows and manifests.`,
    off: "`checks: off` is set in `.github/aider.yml`: only my built-in syntax check runs.",
    none: `I found no lint or test command in \`.github/aider.yml\` or in \`${branch}\`'s workflows and manifests, so only my built-in syntax check runs.`,
  };
  return [
    `**Checks I would run** after each edit (\`/${word} checks\`; nothing was run to answer this)`,
    head[resolved.origin] + (resolved.problem ? `\n\n⚠️ Discovery failed: ${resolved.problem}. Try again later.` : ""),
    renderCheckPlanMarkdown(resolved.plan),
    "To change them, set `setup`, `lint` and `test` in `.github/aider.yml` on the default branch (each key you set replaces what I found), or `checks: off` to run only the syntax check.",
  ].join("\n\n");
}

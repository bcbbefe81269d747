/** The reply to `/aider help` (and to a bare `/aider`). */
export function helpText(word = "aider", options: { contextVerbs?: boolean } = {}): string {
  const c = `/${word}`;
  const context = options.contextVerbs
    ? [
        `- \`${c} address-reviews [--thread ID]... [instruction]\` — address every unresolved review thread (or the ones named) in one commit, then reply in each thread.`,
        `- \`${c} fix-ci [instruction]\` — fix the failing checks of the pull request's head commit (their annotations and log tails become the request).`,
      ]
    : [];
  return [
    `**aider-bot commands** (at the start of a line)`,
    "",
    `- \`${c} <instruction>\` — edit the code: on a pull request I push one commit to its branch; on an issue I open a pull request.`,
    `- \`${c} ask <question>\` — answer a question about the code, no edits.`,
    `- \`${c} plan <instruction>\` — post a plan (files and steps) to approve first: tick its box or write \`${c} approve [corrections]\` to run it; \`${c} plan drop\` drops it.`,
    ...context,
    `- \`${c} undo\` — revert my last commit on this pull request with a new commit.`,
    `- \`${c} retry [options]\` — run the last request again.`,
    `- \`${c} cancel\` — stop the running or queued request here.`,
    `- \`${c} usage\` — this repository's model spend today and this month, against its limits.`,
    `- \`${c} checks\` — list the lint, test and setup commands I would run here and where each comes from.`,
    `- \`${c} help\` — this message.`,
    "",
    "Options (before the instruction): `--file PATH` (repeatable: files to edit), `--edit-format diff|diff-fenced|whole|udiff|patch`, `--model NAME` (one of the models the repository's `.github/aider.yml` allows). `--file=PATH` works too; quote paths with spaces.",
    "",
    `Commands count only at the start of a line, not inside quotes (\`> \`) or code blocks. One comment is one request: the first command line wins and everything after it is its instruction.`,
  ].join("\n");
}

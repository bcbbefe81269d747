import type { BlockedHost, EgressReport, ExecResult, NetworkPolicy } from "../exec/types.js";

export type { EgressReport } from "../exec/types.js";

/** Blocked hosts listed by name (a script that tries thousands of names must not fill the comment). */
const SHOWN = 20;

const POLICY_TEXT: Record<NetworkPolicy, string> = {
  none: "**none** (loopback only: nothing left the sandbox)",
  registries: "**registries** (only package registries and the hosts allowed, through the app's filtering proxy)",
  open: "**open** (the host's network, by the operator's choice)",
};

/** The network lines of the status comment's Sandbox section (markdown). */
export function renderEgress(report: EgressReport): string {
  const lines = [`Network: ${POLICY_TEXT[report.policy]}.${report.note ? ` ${report.note}` : ""}`];
  if (report.added.length)
    lines.push(`Hosts added by \`sandbox.network.allow\`: ${report.added.map((h) => `\`${code(h)}\``).join(", ")}.`);
  for (const b of report.blocked.slice(0, SHOWN)) lines.push(`- ${blockedLine(b, report.repositoryMayAdd)}`);
  if (report.blocked.length > SHOWN) lines.push(`- … and ${report.blocked.length - SHOWN} more hosts blocked`);
  return lines.join("\n");
}

/** `blocked: evil.example.net (3 connections) — add it to sandbox.network.allow in .github/aider.yml if the tests need it` */
export function blockedLine(b: BlockedHost, repositoryMayAdd: boolean): string {
  const what = `blocked: \`${code(b.host)}\` (${b.connections} connection${b.connections === 1 ? "" : "s"})`;
  if (b.kind === "not-allowed")
    return repositoryMayAdd
      ? `${what} — add it to \`sandbox.network.allow\` in .github/aider.yml if the tests need it`
      : `${what} — ask the operator to add it to \`AIDER_BOT_EGRESS_ALLOW\` if the tests need it`;
  return `${what} — ${code(b.reason)}; the sandbox never reaches such addresses (an operator can allow an internal mirror by \`host:port\` in \`AIDER_BOT_EGRESS_INTERNAL\`)`;
}

/**
 * What a failed command's output gets when the policy refused connections while it ran: said to the model (so it
 * does not "fix" the code for a network refusal) and kept in the transcript with the output.
 */
export function blockNote(blocked: readonly BlockedHost[], policy: NetworkPolicy): string {
  const hosts = blocked
    .slice(0, 10)
    .map((b) => `${b.host} (${b.connections}×: ${b.reason})`)
    .join(", ");
  return `\n[aider-bot] The sandbox's network policy (${policy}) refused connections while this command ran: ${hosts}. If the failure above comes from that, it is not a bug in the code: do not change the code to work around it; the repository can allow a host with sandbox.network.allow in .github/aider.yml.\n`;
}

/** Host names come from the sandboxed code: no backticks or markup of theirs reaches the comment. */
const code = (text: string) => text.replace(/[`<>\r\n]/g, "?").slice(0, 200);

/** A command's result with {@link blockNote} added when it failed and hosts were refused between `before` and `after`. */
export function withBlockNote(
  r: ExecResult,
  before: readonly BlockedHost[],
  after: readonly BlockedHost[],
  policy: NetworkPolicy,
): ExecResult {
  if (r.exitCode === 0) return r;
  const earlier = new Map(before.map((b) => [b.host, b.connections]));
  const during = after
    .map((b) => ({ ...b, connections: b.connections - (earlier.get(b.host) ?? 0) }))
    .filter((b) => b.connections > 0);
  if (!during.length) return r;
  const text = blockNote(during, policy);
  return { ...r, output: `${r.output}${text}`, stderr: `${r.stderr}${text}` };
}

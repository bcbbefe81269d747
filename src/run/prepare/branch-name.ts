/**
 * The branch for an issue run: `<prefix>issue-<n>-<slug>`, where the slug comes from the issue title (lower-case
 * ASCII words, at most 40 characters). Parses back with {@link issueNumberFromBranch}.
 * `issueBranchName("aider/", 12, "Add retry logic!") === "aider/issue-12-add-retry-logic"`
 */
export function issueBranchName(prefix: string, issueNumber: number, title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[^\x00-\x7f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/g, "");
  return `${prefix}issue-${issueNumber}${slug ? `-${slug}` : ""}`;
}

/** The issue number a bot branch was made for, or null. */
export function issueNumberFromBranch(prefix: string, branch: string): number | null {
  if (!branch.startsWith(prefix)) return null;
  const m = /^issue-(\d+)(?:-|$)/.exec(branch.slice(prefix.length));
  return m ? Number(m[1]) : null;
}

import type { GitHubApi } from "./github-api.js";

/**
 * Create or update the bot's comment that carries `marker` on an issue/PR (idempotent: a redelivered webhook or a
 * retried job edits the same comment). Returns the comment id.
 */
export async function ensureComment(api: GitHubApi, args: { owner: string; repo: string; issueNumber: number; marker: string; body: string; botLogin?: string }): Promise<number> {
  const existing = await findComment(api, args);
  const body = args.body.includes(args.marker) ? args.body : `${args.marker}\n${args.body}`;
  if (existing) {
    await api.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner: args.owner, repo: args.repo, comment_id: existing.id, body });
    return existing.id;
  }
  const res = await api.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: args.owner, repo: args.repo, issue_number: args.issueNumber, body });
  return res.data.id as number;
}

/** The bot's comment containing `marker`, newest first, or null. */
export async function findComment(
  api: GitHubApi,
  args: { owner: string; repo: string; issueNumber: number; marker: string; botLogin?: string },
): Promise<{ id: number; body: string } | null> {
  const all = await listComments(api, args);
  for (let i = all.length - 1; i >= 0; i--) {
    const c = all[i]!;
    if (args.botLogin && c.user !== args.botLogin) continue;
    if (c.body.includes(args.marker)) return { id: c.id, body: c.body };
  }
  return null;
}

/** Every comment of an issue/PR (paginated), oldest first. */
export async function listComments(api: GitHubApi, args: { owner: string; repo: string; issueNumber: number }): Promise<{ id: number; body: string; user: string }[]> {
  const out: { id: number; body: string; user: string }[] = [];
  for (let page = 1; page <= 20; page++) {
    const res = await api.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: args.owner, repo: args.repo, issue_number: args.issueNumber, per_page: 100, page });
    const items = res.data as { id: number; body?: string; user?: { login?: string } }[];
    out.push(...items.map((c) => ({ id: c.id, body: c.body ?? "", user: c.user?.login ?? "" })));
    if (items.length < 100) break;
  }
  return out;
}

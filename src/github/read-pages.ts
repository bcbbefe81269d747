import { callGitHub } from "./github-error.js";

/** One page of a REST list as Octokit's `paginate.iterator` yields it (a namespaced list is already unwrapped). */
export interface ListPage<T> {
  data: T[];
  headers: { link?: string };
}

/**
 * The items of a paged REST list, up to `maxPages` pages (GitHub's `link` header leads from one to the next), and
 * whether the cap cut the list (a `next` link was left), so callers can say so. A failure is a GitHubError naming
 * `doing`.
 */
export async function readPages<T>(
  doing: string,
  pages: AsyncIterable<ListPage<T>>,
  maxPages: number,
): Promise<{ items: T[]; truncated: boolean }> {
  return callGitHub(doing, async () => {
    const items: T[] = [];
    let read = 0;
    for await (const page of pages) {
      items.push(...page.data);
      if (++read >= maxPages) return { items, truncated: /rel="next"/.test(page.headers.link ?? "") };
    }
    return { items, truncated: false };
  });
}

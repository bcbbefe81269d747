import { GitHubError } from "../../src/github/github-error.js";
import { readPages, type ListPage } from "../../src/github/read-pages.js";

const next = { link: '<https://api.github.com/x?page=2>; rel="next"' };

async function* pages(list: ListPage<number>[], failAt?: number): AsyncGenerator<ListPage<number>> {
  for (const [i, page] of list.entries()) {
    if (i === failAt) throw Object.assign(new Error("Server Error"), { status: 503 });
    yield page;
  }
}

describe("readPages", () => {
  it("collects every page when GitHub links no further one", async () => {
    const list = [
      { data: [1, 2], headers: next },
      { data: [3], headers: {} },
    ];
    expect(await readPages("Listing x", pages(list), 10)).toEqual({ items: [1, 2, 3], truncated: false });
  });

  it("stops at maxPages and says the list was cut only when a next page is linked", async () => {
    const list = [
      { data: [1], headers: next },
      { data: [2], headers: next },
      { data: [3], headers: {} },
    ];
    expect(await readPages("Listing x", pages(list), 2)).toEqual({ items: [1, 2], truncated: true });
    expect(await readPages("Listing x", pages(list.slice(0, 1).map((p) => ({ ...p, headers: {} }))), 1)).toEqual({
      items: [1],
      truncated: false,
    });
  });

  it("maps a failed page to a GitHubError naming what was being listed", async () => {
    const list = [
      { data: [1], headers: next },
      { data: [2], headers: {} },
    ];
    const error: unknown = await readPages("Listing x", pages(list, 1), 10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({ kind: "unavailable", status: 503 });
    expect(String(error)).toContain("Listing x failed");
  });
});

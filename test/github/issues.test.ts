import nock from "nock";
import { createIssue, findOpenIssueByMarker } from "../../src/github/issues.js";
import { GITHUB_API as API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

describe("issues over Octokit and nock", () => {
  useStrictNock(nock);

  describe("tracking issues", () => {
    const marker = "<!-- aider-bot:schedule:k -->";
    it("finds the bot's open issue carrying the marker on a later page, skipping pull requests", async () => {
      nock(API)
        .get("/repos/acme/web/issues")
        .query({ state: "open", creator: "bot[bot]", per_page: "100" })
        .reply(
          200,
          [
            { number: 1, title: "pr", body: marker, pull_request: { url: "x" } },
            { number: 2, title: "other", body: null },
          ],
          {
            link: `<${API}/repos/acme/web/issues?state=open&creator=bot%5Bbot%5D&per_page=100&page=2>; rel="next"`,
          },
        )
        .get("/repos/acme/web/issues")
        .query({ state: "open", creator: "bot[bot]", per_page: "100", page: "2" })
        .reply(200, [{ number: 3, title: "aider-bot schedule: x", body: `${marker}\ntracks` }]);
      expect(
        await findOpenIssueByMarker(testOctokit(), { owner: "acme", repo: "web", creator: "bot[bot]", marker }),
      ).toEqual({ number: 3, title: "aider-bot schedule: x", body: `${marker}\ntracks` });
    });

    it("is null when there is none, and opens one", async () => {
      nock(API)
        .get("/repos/acme/web/issues")
        .query(true)
        .reply(200, [])
        .post("/repos/acme/web/issues", { title: "t", body: marker })
        .reply(201, { number: 4, title: "t", body: marker });
      const api = testOctokit();
      expect(await findOpenIssueByMarker(api, { owner: "acme", repo: "web", creator: "bot[bot]", marker })).toBeNull();
      expect(await createIssue(api, { owner: "acme", repo: "web", title: "t", body: marker })).toEqual({
        number: 4,
        title: "t",
        body: marker,
      });
    });
  });
});

import { answer, failure, type Shape } from "../../testkit/github-shapes.js";

// The fake GitHub's answers are typed against @octokit/openapi-types: each `@ts-expect-error` below is an answer that
// differs from GitHub's documented shape, and `npm run typecheck` fails if one of them stops being an error.
describe("the fake GitHub's answers are typed against GitHub's schemas", () => {
  it("accepts a documented subset and keeps the status and body", () => {
    expect(answer("issues/get", 200, { number: 1, state: "open", labels: [{ name: "bug" }] })).toEqual({
      status: 200,
      json: { number: 1, state: "open", labels: [{ name: "bug" }] },
    });
    expect(failure(404, "Not Found")).toEqual({ status: 404, json: { message: "Not Found" } });
  });

  it("refuses a field of the wrong type, a field GitHub does not document and a status the operation lacks", () => {
    const wrong = [
      // @ts-expect-error `number` is a number in GitHub's issue
      answer("issues/get", 200, { number: "1" }),
      // @ts-expect-error a pull request's state is "open" or "closed"
      answer("pulls/get", 200, { state: "merged" }),
      // @ts-expect-error GitHub's commit has its verification under `commit`, not at the top
      answer("repos/get-commit", 200, { sha: "a", verification: { verified: true } }),
      // @ts-expect-error creating a comment answers 201, not 200
      answer("issues/create-comment", 200, { id: 1 }),
      // @ts-expect-error there is no such operation
      answer("issues/get-everything", 200, {}),
    ];
    const nested: Shape<"pull-request"> = {
      // @ts-expect-error a head's sha is a string
      head: { sha: 1 },
    };
    expect(wrong).toHaveLength(5);
    expect(nested).toBeDefined();
  });
});

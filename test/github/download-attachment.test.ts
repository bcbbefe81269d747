import nock from "nock";
import { downloadAttachment } from "../../src/github/download-attachment.js";
import { testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const ASSET = "https://github.com";
const url = new URL(`${ASSET}/user-attachments/assets/0f3c`);

describe("downloadAttachment over Octokit and nock", () => {
  useStrictNock(nock);

  it("reads the bytes through the caller's fetch, with the installation's token as a header", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    nock(ASSET, { reqheaders: { authorization: "token t", accept: "image/png" } })
      .get("/user-attachments/assets/0f3c")
      .reply(200, png, { "content-type": "application/octet-stream" });
    const bytes = await downloadAttachment(testOctokit(), { url, accept: "image/png", fetch: globalThis.fetch });
    expect(bytes).toEqual(png);
  });

  it("is null when the answer is not bytes (a JSON or text body)", async () => {
    nock(ASSET).get("/user-attachments/assets/0f3c").reply(200, { not: "an image" });
    expect(await downloadAttachment(testOctokit(), { url, accept: "image/png", fetch: globalThis.fetch })).toBeNull();
  });

  it("maps a missing attachment to a not-found GitHubError naming it", async () => {
    nock(ASSET).get("/user-attachments/assets/0f3c").reply(404, { message: "Not Found" });
    await expect(
      downloadAttachment(testOctokit(), { url, accept: "image/png", fetch: globalThis.fetch }),
    ).rejects.toMatchObject({
      name: "GitHubError",
      kind: "not-found",
      status: 404,
      message: expect.stringContaining("Downloading the attachment /user-attachments/assets/0f3c failed"),
    });
  });
});

import http from "node:http";
import type { AddressInfo } from "node:net";
import { ProbotOctokit } from "probot";
import { RepoGitHub } from "../../../src/github/repo-github.js";
import { collectImages } from "../../../src/context/fetch/collect-images.js";
import { downloadImage } from "../../../src/context/fetch/download-image.js";
import { makePng } from "../../helpers/make-png.js";

type Hit = { url: string; authorization?: string; host: string };

/** A local server standing in for GitHub's web host; `routes` answers by path. */
async function server(routes: (url: string, res: http.ServerResponse) => void) {
  const hits: Hit[] = [];
  const s = http.createServer((req, res) => {
    hits.push({ url: req.url ?? "", authorization: req.headers.authorization, host: req.headers.host ?? "" });
    routes(req.url ?? "", res);
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return { hits, origin, close: () => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))) };
}

// The installation client as the app has it (auth header from its token, retries and throttling on): the downloader
// must turn them off for its own request.
const octokit = (origin: string) =>
  RepoGitHub.create({
    octokit: new ProbotOctokit({
      auth: { token: "ghs_installation" },
      baseUrl: `${origin}/api/v3`,
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    }),
    owner: "acme",
    repo: "web",
  });

describe("downloadImage", () => {
  const png = makePng(10, 10);
  let web: Awaited<ReturnType<typeof server>>;
  let other: Awaited<ReturnType<typeof server>>;
  beforeEach(async () => {
    other = await server((_u, res) => res.writeHead(200, { "content-type": "image/png" }).end(png));
    web = await server((url, res) => {
      if (url === "/user-attachments/assets/ok")
        return void res.writeHead(200, { "content-type": "image/png" }).end(png);
      if (url === "/user-attachments/assets/text")
        return void res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(png);
      if (url === "/user-attachments/assets/declared")
        return void res
          .writeHead(200, { "content-type": "image/png", "content-length": String(60 * 1024 * 1024) })
          .end();
      if (url === "/user-attachments/assets/stream") {
        res.writeHead(200, { "content-type": "image/png" });
        const chunk = Buffer.alloc(64 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 50 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        res.on("close", () => (sent = Infinity));
        return pump();
      }
      if (url === "/user-attachments/assets/away")
        return void res.writeHead(302, { location: `${other.origin}/steal` }).end();
      if (url === "/user-attachments/assets/here")
        return void res.writeHead(302, { location: "/user-attachments/assets/ok" }).end();
      res.writeHead(404, { "content-type": "application/json" }).end('{"message":"Not Found"}');
    });
  });
  afterEach(async () => {
    await web.close();
    await other.close();
  });

  const get = (path: string, maxBytes = 5 * 1024 * 1024) =>
    downloadImage(octokit(web.origin), new URL(`${web.origin}${path}`), { maxBytes, tokenOrigin: web.origin });

  it("downloads the bytes as they are, with the token as a header on the web host, whatever the content type says", async () => {
    expect(await get("/user-attachments/assets/ok")).toEqual({ ok: true, bytes: png });
    expect(await get("/user-attachments/assets/text")).toEqual({ ok: true, bytes: png });
    expect(web.hits.every((h) => h.authorization === "token ghs_installation")).toBe(true);
  });

  it("refuses a declared size over the cap before reading, and stops reading a stream at the cap (asked once, no retry)", async () => {
    expect(await get("/user-attachments/assets/declared")).toEqual({
      ok: false,
      reason: "it is 60 MB, over the limit of 5.0 MB",
    });
    expect(await get("/user-attachments/assets/stream")).toEqual({
      ok: false,
      reason: "it is over the limit of 5.0 MB",
    });
    expect(web.hits.filter((h) => h.url === "/user-attachments/assets/stream")).toHaveLength(1);
  });

  it("follows a redirect on the same host, never one to another host", async () => {
    expect(await get("/user-attachments/assets/here")).toEqual({ ok: true, bytes: png });
    const away = await get("/user-attachments/assets/away");
    expect(away).toEqual({ ok: false, reason: expect.stringContaining("which is not a GitHub asset host") });
    expect(other.hits).toEqual([]);
  });

  it("a missing attachment says what GitHub answered", async () => {
    expect(await get("/user-attachments/assets/nope")).toEqual({ ok: false, reason: "GitHub answered HTTP 404" });
  });

  it("collectImages: a vision model gets the attachment; links elsewhere and non-images are notes; the other host is never asked", async () => {
    const set = await collectImages({
      github: octokit(web.origin),
      texts: [
        {
          label: "the issue's description",
          text: `![a](${web.origin}/user-attachments/assets/ok)\n![b](${other.origin}/x.png)\n![c](${web.origin}/user-attachments/assets/stream)`,
        },
        { label: "the comment by @bo", text: `<img src="${web.origin}/user-attachments/assets/ok">` },
      ],
      webOrigin: web.origin,
      model: "gpt-4o",
    });
    expect(set.images.map((i) => [i.label, i.type, i.part.width, i.part.height])).toEqual([
      ["the issue's description", "image/png", 10, 10],
    ]);
    expect(set.images[0]!.part.dataUrl).toBe(`data:image/png;base64,${png.toString("base64")}`);
    expect(set.notes).toEqual([
      expect.stringContaining("1 image link not read"),
      "The image in the issue's description was left out: it is over the limit of 5.0 MB.",
    ]);
    expect(other.hits).toEqual([]);
  });

  it("collectImages: nothing is downloaded for a model without vision, and the cap on the count is a note", async () => {
    const plain = [
      {
        label: "d",
        text:
          [1, 2, 3].map(() => `![x](${web.origin}/user-attachments/assets/ok)`).join(" ") +
          ` ![y](${web.origin}/user-attachments/assets/here)`,
      },
    ];
    const blind = await collectImages({
      github: octokit(web.origin),
      texts: plain,
      webOrigin: web.origin,
      model: "gpt-3.5-turbo",
    });
    expect(blind.notes).toEqual([
      "2 images left out: the model `gpt-3.5-turbo` is not known to accept images (set `vision: true` in .github/aider.yml if it does).",
    ]);
    expect(web.hits).toEqual([]);
    const capped = await collectImages({
      github: octokit(web.origin),
      texts: plain,
      webOrigin: web.origin,
      model: "gpt-3.5-turbo",
      vision: true,
      limits: { maxImages: 1 },
    });
    expect(capped.images).toHaveLength(1);
    expect(capped.notes).toEqual(["1 image left out: at most 1 images are sent."]);
  });
});

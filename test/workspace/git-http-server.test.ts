import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { startGitHttpServer, type GitHttpServer } from "../../testkit/git-http-server.js";
import { seedBareRepo } from "./git-fixtures.js";

/** One pkt-line: 4 hex digits of total length, then the payload. */
const pkt = (s: string) => `${(s.length + 4).toString(16).padStart(4, "0")}${s}`;

describe("git smart-HTTP test server", () => {
  let tmp: string;
  let server: GitHttpServer;
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "git-srv-"));
    await seedBareRepo(tmp, "o/r.git", { "f.txt": "f\n" });
  });
  afterEach(async () => {
    await server.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it("answers 401 with a Basic challenge until the token comes", async () => {
    server = await startGitHttpServer({ projectRoot: tmp, requireToken: "sekrit-token" });
    const refs = `${server.url}/o/r.git/info/refs?service=git-upload-pack`;
    const anon = await fetch(refs);
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toMatch(/^Basic/);
    const bad = await fetch(refs, { headers: { Authorization: `Basic ${Buffer.from("x:nope").toString("base64")}` } });
    expect(bad.status).toBe(401);
    const good = await fetch(refs, {
      headers: { Authorization: `Basic ${Buffer.from("x-access-token:sekrit-token").toString("base64")}` },
    });
    expect(good.status).toBe(200);
    expect(good.headers.get("content-type")).toBe("application/x-git-upload-pack-advertisement");
    expect(await good.text()).toContain("refs/heads/main");
    expect(server.seenUrls).toEqual(Array(3).fill("/o/r.git/info/refs?service=git-upload-pack"));
    expect(server.requests.map((r) => r.status)).toEqual([401, 401, 200]);
  });

  it("maps a CGI Status: header (unknown repository → 404)", async () => {
    server = await startGitHttpServer({ projectRoot: tmp });
    const res = await fetch(`${server.url}/o/missing.git/info/refs?service=git-upload-pack`);
    expect(res.status).toBe(404);
  });

  it("passes a gzip request body and the Git-Protocol header through (protocol v2 ls-refs)", async () => {
    server = await startGitHttpServer({ projectRoot: tmp });
    const body = gzipSync(Buffer.from(`${pkt("command=ls-refs\n")}0001${pkt("symrefs\n")}0000`));
    const res = await fetch(`${server.url}/o/r.git/git-upload-pack`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-git-upload-pack-request",
        "Content-Encoding": "gzip",
        "Git-Protocol": "version=2",
      },
      body,
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/[0-9a-f]{40} HEAD symref-target:refs\/heads\/main/);
    expect(text).toContain("refs/heads/main");
    expect(server.requests[0]).toMatchObject({ gitProtocol: "version=2", contentEncoding: "gzip", status: 200 });
  });
});

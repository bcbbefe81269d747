import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeGceMetadata {
  /** `127.0.0.1:<port>`: the value for GCE_METADATA_HOST, which Google's auth library honours. */
  host: string;
  /** The access token it issues (the fake Vertex endpoint checks it). */
  token: string;
  /** Token requests served. */
  tokensIssued(): number;
  /** The path of every request, in order. */
  paths: string[];
  close(): Promise<void>;
}

/**
 * A fake of Google's metadata server on 127.0.0.1, the way a workload on GCE, GKE (workload identity) or Cloud Run
 * gets its Application Default Credentials: it answers only requests carrying `Metadata-Flavor: Google`, with that
 * header, and issues `token` for the default service account.
 */
export async function startFakeGceMetadata(o: { token: string; projectId?: string }): Promise<FakeGceMetadata> {
  let issued = 0;
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://metadata").pathname;
    paths.push(path);
    const headers = { "metadata-flavor": "Google" };
    if (req.headers["metadata-flavor"] !== "Google") {
      res.writeHead(403, headers);
      res.end("Missing Metadata-Flavor: Google header");
      return;
    }
    if (path.endsWith("/instance/service-accounts/default/token")) {
      issued++;
      res.writeHead(200, { ...headers, "content-type": "application/json" });
      res.end(JSON.stringify({ access_token: o.token, expires_in: 3599, token_type: "Bearer" }));
    } else if (path.endsWith("/project/project-id")) {
      res.writeHead(200, { ...headers, "content-type": "application/text" });
      res.end(o.projectId ?? "fake-project");
    } else if (path.startsWith("/computeMetadata/v1")) {
      res.writeHead(200, { ...headers, "content-type": "application/text" });
      res.end("");
    } else {
      res.writeHead(404, headers);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    token: o.token,
    tokensIssued: () => issued,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

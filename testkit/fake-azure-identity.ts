import http from "node:http";
import { listenOnLoopback } from "./fake-model-server.js";

export interface FakeAzureIdentity {
  /** The value for IDENTITY_ENDPOINT, which Azure's identity libraries honour (App Service, Functions, Container Apps). */
  endpoint: string;
  /** The value for IDENTITY_HEADER: the secret every token request must carry as `X-IDENTITY-HEADER`. */
  header: string;
  /**
   * The value for AZURE_POD_IDENTITY_AUTHORITY_HOST, where the identity libraries look for the instance metadata
   * service (IMDS) instead of 169.254.169.254. It answers as IMDS does on a VM with no identity assigned: 400
   * "Identity not found".
   */
  imdsHost: string;
  /** The access token it issues (the fake Azure OpenAI endpoint checks it). */
  token: string;
  /** Every request: its query (`resource`, `api-version`) and whether it carried the right header. */
  requests: { resource: string | null; apiVersion: string | null; authorised: boolean }[];
  /** While on, every token request is refused (401), as for an identity the platform no longer knows. */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

/**
 * A fake of the managed-identity endpoint Azure runs beside an App Service, Functions or Container Apps workload, on
 * 127.0.0.1: `GET <IDENTITY_ENDPOINT>?api-version=2019-08-01&resource=<resource>` with the `X-IDENTITY-HEADER`
 * secret answers a bearer token for that resource, as the platform's does; without the header, 401. Beside it, an
 * IMDS of a machine without an identity, so a test of "no credential" never reaches for the real 169.254.169.254.
 */
export async function startFakeAzureIdentity(o: { header: string; token: string }): Promise<FakeAzureIdentity> {
  const requests: FakeAzureIdentity["requests"] = [];
  let refusing = false;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://identity");
    const authorised = !refusing && req.headers["x-identity-header"] === o.header;
    const resource = url.searchParams.get("resource");
    requests.push({ resource, apiVersion: url.searchParams.get("api-version"), authorised });
    res.setHeader("content-type", "application/json");
    if (url.pathname.startsWith("/metadata/identity/oauth2/token")) {
      res.writeHead(400);
      res.end(JSON.stringify({ error: "invalid_request", error_description: "Identity not found" }));
      return;
    }
    if (req.method !== "GET" || url.pathname !== "/msi/token") {
      res.writeHead(404);
      res.end(JSON.stringify({ error: { code: "NotFound", message: `no route ${url.pathname}` } }));
      return;
    }
    if (!authorised || !resource) {
      res.writeHead(authorised ? 400 : 401);
      res.end(
        JSON.stringify({
          error: { code: authorised ? "BadRequest" : "Unauthorized", message: "missing header or resource" },
        }),
      );
      return;
    }
    res.writeHead(200);
    res.end(
      JSON.stringify({
        access_token: o.token,
        expires_on: String(Math.floor(Date.now() / 1000) + 3600),
        resource,
        token_type: "Bearer",
      }),
    );
  });
  const { port, close } = await listenOnLoopback(server);
  const root = `http://127.0.0.1:${port}`;
  return {
    endpoint: `${root}/msi/token`,
    imdsHost: root,
    header: o.header,
    token: o.token,
    requests,
    refuse: (on) => (refusing = on),
    close,
  };
}

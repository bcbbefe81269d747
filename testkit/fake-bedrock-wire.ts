import { createHash, createHmac, type BinaryLike, type Hash, type Hmac } from "node:crypto";
import type http from "node:http";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { SignatureV4 } from "@smithy/signature-v4";

/**
 * Bedrock's side of the fake Claude server (fake-claude-server.ts): its response-stream frames, its error shape and
 * the SigV4 check of each request, as the AWS SDK expects them on the wire.
 */

/** The keys a Bedrock request must be signed with. */
export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
}

const codec = new EventStreamCodec(
  (bytes: Uint8Array) => new TextDecoder().decode(bytes),
  (text: string) => new TextEncoder().encode(text),
);

/** One Bedrock response-stream frame: a `chunk` event whose JSON payload carries the Anthropic event, base64. */
export function eventStreamFrame(event: Record<string, unknown>): Uint8Array {
  const payload = JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString("base64") });
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: "chunk" },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    body: new TextEncoder().encode(payload),
  });
}

export function bedrockFail(
  res: http.ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "content-type": "application/json",
    "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    ...headers,
  });
  res.end(JSON.stringify({ message }));
}

/** A node:crypto SHA-256 in the shape `@smithy/signature-v4` takes (a hash, or an HMAC with a secret). */
const bytes = (data: ArrayBuffer | ArrayBufferView): Uint8Array =>
  data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

class NodeSha256 {
  private hash: Hash | Hmac;
  private readonly secret: BinaryLike | undefined;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.secret = secret === undefined ? undefined : typeof secret === "string" ? secret : bytes(secret);
    this.hash = this.secret ? createHmac("sha256", this.secret) : createHash("sha256");
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(typeof data === "string" ? data : bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.secret ? createHmac("sha256", this.secret) : createHash("sha256");
  }
}

/**
 * Why a Bedrock request's SigV4 signature is wrong, or null when it is right: the request is signed again with the
 * expected keys over the headers it says it signed, at the time it says it was signed, and the signatures compared.
 */
export async function signatureProblem(
  req: http.IncomingMessage,
  url: URL,
  body: Buffer,
  aws: AwsKeys,
): Promise<string | null> {
  const auth = String(req.headers.authorization ?? "");
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(
      auth,
    );
  if (!match) return "The request is not signed with AWS Signature Version 4.";
  const [, keyId, , region, service, signedHeaders, signature] = match;
  if (keyId !== aws.accessKeyId) return "The security token included in the request is invalid (unknown access key).";
  if (region !== aws.region || service !== "bedrock") return `Credential should be scoped to ${aws.region}/bedrock.`;
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  const signingDate = new Date(amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, "$1-$2-$3T$4:$5:$6Z"));
  if (Number.isNaN(signingDate.getTime())) return "x-amz-date is missing or malformed.";
  if (aws.sessionToken && req.headers["x-amz-security-token"] !== aws.sessionToken)
    return "The security token included in the request is invalid.";
  const headers: Record<string, string> = {};
  for (const name of signedHeaders!.split(";")) headers[name] = String(req.headers[name] ?? "");
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key);
  const signer = new SignatureV4({
    service: "bedrock",
    region: aws.region,
    credentials: {
      accessKeyId: aws.accessKeyId,
      secretAccessKey: aws.secretAccessKey,
      ...(aws.sessionToken ? { sessionToken: aws.sessionToken } : {}),
    },
    sha256: NodeSha256,
  });
  const signed = await signer.sign(
    {
      method: req.method ?? "POST",
      protocol: "http:",
      hostname: url.hostname,
      path: url.pathname,
      query,
      headers,
      body: body.toString("utf8"),
    },
    { signingDate, signableHeaders: new Set(Object.keys(headers)) },
  );
  const expected = /Signature=([0-9a-f]+)/.exec(String(signed.headers.authorization ?? ""))?.[1];
  return expected === signature
    ? null
    : "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.";
}

import tls from "node:tls";
import net from "node:net";
import { forbiddenAddress } from "../../src/egress/address-class.js";
import { decide } from "../../src/egress/egress-decision.js";
import { blockedLine, renderEgress, withBlockNote } from "../../src/egress/egress-report.js";
import { parseLdd } from "../../src/egress/forwarder-bundle.js";
import { isHostPattern, matchesPattern, splitHostPort } from "../../src/egress/host-match.js";
import { egressRules, parseNetworkSetting, REGISTRY_HOSTS } from "../../src/egress/network-policy.js";
import { parseSni } from "../../src/egress/tls-sni.js";
import { upstreamFor } from "../../src/egress/upstream-proxy.js";
import { readEnv } from "../../src/config/env.js";
import { parseRepoConfig } from "../../src/config/repo-config.js";

describe("the allowlist's host match", () => {
  it("matches names exactly and *. wildcards on subdomains only", () => {
    expect(matchesPattern("Registry.NPMJS.org.", "registry.npmjs.org")).toBe(true);
    expect(matchesPattern("a.example.org", "*.example.org")).toBe(true);
    expect(matchesPattern("a.b.example.org", "*.example.org")).toBe(true);
    expect(matchesPattern("example.org", "*.example.org")).toBe(false);
    expect(matchesPattern("evilexample.org", "*.example.org")).toBe(false);
    expect(matchesPattern("example.org.evil.net", "example.org")).toBe(false);
  });
  it("takes host names and wildcards as patterns, never addresses, ports or schemes", () => {
    for (const ok of ["api.example.com", "*.example.org", "localhost"]) expect(isHostPattern(ok)).toBe(true);
    for (const bad of ["10.0.0.5", "example.com:443", "https://x.org", "*", "*.", "a..b", "::1", "a b"])
      expect(isHostPattern(bad)).toBe(false);
  });
  it("splits host:port, IPv6 in brackets", () => {
    expect(splitHostPort("[::1]:6379")).toEqual({ host: "::1", port: 6379 });
    expect(splitHostPort("Registry.internal:8081")).toEqual({ host: "registry.internal", port: 8081 });
    expect(splitHostPort("x.org")).toBeNull();
    expect(splitHostPort("x.org:99999")).toBeNull();
  });
});

describe("address classification", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "shared address space (100.64.0.0/10)"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["0.0.0.0", "unspecified (0.0.0.0/8)"],
    ["::", "unspecified (::)"],
    ["::1", "loopback"],
    ["fe80::1", "link-local (fe80::/10)"],
    ["fd00:ec2::254", "unique-local (fc00::/7)"],
    ["fc00::1", "unique-local (fc00::/7)"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local (cloud metadata)"],
    ["::ffff:a00:1", "private"],
    ["64:ff9b::a9fe:a9fe", "link-local (cloud metadata)"],
    ["2002:c0a8:0101::1", "private"],
  ])("never connects to %s (%s)", (address, why) => expect(forbiddenAddress(address)).toBe(why));
  it.each(["93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:93.184.216.34"])(
    "may connect to the public %s",
    (address) => expect(forbiddenAddress(address)).toBeNull(),
  );
});

describe("the proxy's decision", () => {
  const rules = egressRules({
    policy: "registries",
    operatorAllow: ["api.example.com"],
    internal: ["127.0.0.1:4873", "artifactory.corp:8081"],
    repositoryAllow: ["*.example.org", "10.0.0.5", "rebind.example.org"],
    repositoryMayAdd: true,
  });
  const lookup = async (host: string) =>
    ({
      "registry.npmjs.org": [{ address: "104.16.0.35", family: 4 }],
      "rebind.example.org": [{ address: "127.0.0.1", family: 4 }],
      "mixed.example.org": [
        { address: "10.0.0.1", family: 4 },
        { address: "93.184.216.34", family: 4 },
      ],
      "artifactory.corp": [{ address: "10.0.0.5", family: 4 }],
    })[host] ?? [];
  it("connects to the checked public address of a host on the list", async () => {
    expect(await decide("registry.npmjs.org", 443, rules, lookup)).toEqual({
      ok: true,
      address: "104.16.0.35",
      internal: false,
    });
    expect(await decide("mixed.example.org", 443, rules, lookup)).toMatchObject({ ok: true, address: "93.184.216.34" });
  });
  it("refuses hosts off the list, addresses, and names that resolve to the host's or private addresses", async () => {
    expect(await decide("evil.example.net", 443, rules, lookup)).toMatchObject({ ok: false, kind: "not-allowed" });
    expect(await decide("93.184.216.34", 443, rules, lookup)).toMatchObject({ ok: false, kind: "not-allowed" });
    expect(await decide("rebind.example.org", 443, rules, lookup)).toMatchObject({
      ok: false,
      kind: "address",
      reason: "resolves to 127.0.0.1, a loopback address",
    });
    expect(await decide("127.0.0.1", 6379, rules, lookup)).toMatchObject({ ok: false, kind: "address" });
    // A repository's address entry was dropped: only names come from a repository.
    expect(await decide("10.0.0.5", 443, rules, lookup)).toMatchObject({ ok: false, kind: "address" });
    expect(rules.fromRepository).toEqual(["*.example.org", "rebind.example.org"]);
  });
  it("reaches the operator's internal pairs by exact host:port only", async () => {
    expect(await decide("127.0.0.1", 4873, rules, lookup)).toEqual({ ok: true, address: "127.0.0.1", internal: true });
    expect(await decide("artifactory.corp", 8081, rules, lookup)).toMatchObject({ ok: true, address: "10.0.0.5" });
    expect(await decide("artifactory.corp", 22, rules, lookup)).toMatchObject({ ok: false });
    expect(await decide("127.0.0.1", 4874, rules, lookup)).toMatchObject({ ok: false, kind: "address" });
  });
  it("drops a repository's additions when the operator forbids them", () => {
    const closed = egressRules({
      policy: "registries",
      operatorAllow: [],
      internal: [],
      repositoryAllow: ["api.example.com"],
      repositoryMayAdd: false,
    });
    expect(closed.allow).toEqual([...REGISTRY_HOSTS]);
    expect(closed.fromRepository).toEqual([]);
  });
});

describe("the TLS ClientHello's server name", () => {
  /** A real ClientHello, as Node's TLS client writes it. */
  async function helloFor(servername: string | undefined): Promise<Buffer> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const got = new Promise<Buffer>((resolve) =>
      server.once("connection", (s) => s.once("data", (d: Buffer) => (resolve(d), s.destroy()))),
    );
    const c = tls.connect({
      host: "127.0.0.1",
      port: (server.address() as net.AddressInfo).port,
      ...(servername ? { servername } : {}),
    });
    c.on("error", () => undefined);
    const hello = await got;
    c.destroy();
    server.close();
    return hello;
  }
  it("reads the name, waits for a whole record, and tells TLS from other bytes", async () => {
    const hello = await helloFor("registry.npmjs.org");
    expect(parseSni(hello)).toEqual({ kind: "hello", name: "registry.npmjs.org" });
    expect(parseSni(hello.subarray(0, 40))).toEqual({ kind: "incomplete" });
    expect(parseSni(Buffer.from("GET / HTTP/1.1\r\n"))).toEqual({ kind: "not-tls" });
    expect(parseSni(await helloFor(undefined))).toEqual({ kind: "hello", name: null });
  });
});

describe("the network setting and the repository's list", () => {
  it("defaults to registries; 0 and 1 keep working as none and open", () => {
    expect(readEnv({}).sandboxNetwork).toBe("registries");
    expect(readEnv({ AIDER_BOT_SANDBOX_NETWORK: "0" }).sandboxNetwork).toBe("none");
    expect(readEnv({ AIDER_BOT_SANDBOX_NETWORK: "1" }).sandboxNetwork).toBe("open");
    expect(parseNetworkSetting("open")).toBe("open");
    expect(() => readEnv({ AIDER_BOT_SANDBOX_NETWORK: "yes" })).toThrow(
      /AIDER_BOT_SANDBOX_NETWORK must be none, registries or open \(0 and 1 still mean none and open\)/,
    );
    expect(() => readEnv({ AIDER_BOT_EGRESS_INTERNAL: "10.0.0.5" })).toThrow(
      /AIDER_BOT_EGRESS_INTERNAL must list host:port/,
    );
    expect(readEnv({ AIDER_BOT_EGRESS_ALLOW: "api.example.com, *.example.org" }).egressAllow).toEqual([
      "api.example.com",
      "*.example.org",
    ]);
  });
  it("reads the host's proxy for allowed connections, never echoing it", () => {
    const env = readEnv({ HTTPS_PROXY: "http://u:p@proxy.corp:3128", NO_PROXY: ".corp,localhost" });
    expect(env.hostProxy?.https).toEqual({ host: "proxy.corp", port: 3128, auth: `Basic ${btoa("u:p")}` });
    expect(upstreamFor(env.hostProxy, "registry.npmjs.org", "https")?.host).toBe("proxy.corp");
    expect(upstreamFor(env.hostProxy, "mirror.corp", "https")).toBeNull();
    expect(() => readEnv({ HTTPS_PROXY: "socks5://secret@x" })).toThrow(/HTTPS_PROXY must be an http:\/\/ proxy URL/);
    expect(() => readEnv({ HTTPS_PROXY: "socks5://secret@x" })).not.toThrow(/secret/);
  });
  it("takes sandbox.network.allow as host names only", () => {
    const ok = parseRepoConfig({ sandbox: { network: { allow: ["api.example.com", "*.example.org"] } } });
    expect(ok.ok && ok.config.sandbox.network?.allow).toEqual(["api.example.com", "*.example.org"]);
    const bad = parseRepoConfig({ sandbox: { network: { allow: ["169.254.169.254"] } } });
    expect(bad).toMatchObject({ ok: false, problems: [{ path: "sandbox.network.allow.0" }] });
  });
});

describe("what is said about blocks", () => {
  const blocked = [
    { host: "evil.example.net", kind: "not-allowed" as const, reason: "not on the allowlist", connections: 3 },
    {
      host: "169.254.169.254",
      kind: "address" as const,
      reason: "a link-local (cloud metadata) address",
      connections: 1,
    },
  ];
  it("lists each blocked host with how to allow it", () => {
    const text = renderEgress({ policy: "registries", blocked, repositoryMayAdd: true, added: ["api.example.com"] });
    expect(text).toContain(
      "- blocked: `evil.example.net` (3 connections) — add it to `sandbox.network.allow` in .github/aider.yml if the tests need it",
    );
    expect(text).toContain("- blocked: `169.254.169.254` (1 connection) — a link-local (cloud metadata) address");
    expect(text).toContain("Hosts added by `sandbox.network.allow`: `api.example.com`.");
    expect(blockedLine(blocked[0]!, false)).toContain("ask the operator to add it to `AIDER_BOT_EGRESS_ALLOW`");
  });
  it("adds the note to a failed command's output only for blocks during it", () => {
    const r = { exitCode: 1, output: "boom", stdout: "", stderr: "", timedOut: false, durationMs: 1 };
    const noted = withBlockNote(r, [{ ...blocked[0]!, connections: 1 }], blocked, "registries");
    expect(noted.output).toMatch(/boom\n\[aider-bot\] .*evil\.example\.net \(2×: not on the allowlist\), 169\.254/);
    expect(withBlockNote(r, blocked, blocked, "registries")).toBe(r);
    expect(withBlockNote({ ...r, exitCode: 0 }, [], blocked, "registries").output).toBe("boom");
  });
});

it("finds socat's libraries and loader in ldd's answer", () => {
  const text = `\tlinux-vdso.so.1 (0x00007f)\n\tlibssl.so.3 => /lib/x86_64-linux-gnu/libssl.so.3 (0x00007f)\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f)\n`;
  expect(parseLdd(text)).toEqual({
    libs: [["libssl.so.3", "/lib/x86_64-linux-gnu/libssl.so.3"]],
    loader: "/lib64/ld-linux-x86-64.so.2",
  });
});

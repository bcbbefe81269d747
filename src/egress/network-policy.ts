import type { NetworkPolicy } from "../exec/types.js";
import { isHostPattern, normalizeHost, splitHostPort } from "./host-match.js";

/**
 * What a sandbox's code may reach on the network (pure):
 * - `none`: loopback only, nothing leaves;
 * - `registries`: only the hosts of {@link REGISTRY_HOSTS} (and what the operator and the repository add), through
 *   the app's filtering proxy (see egress-proxy), never an address of the host, the cloud metadata endpoint or a
 *   private network;
 * - `open`: the host's own network, by the operator's explicit choice.
 */
export type { NetworkPolicy } from "../exec/types.js";

export const NETWORK_POLICIES: readonly NetworkPolicy[] = ["none", "registries", "open"];

/**
 * The package registries and toolchain download hosts installs need: npm and yarn, PyPI and its file host,
 * crates.io and its static host (and rustup's), the Go module proxy and checksum database (and Go's toolchain
 * downloads), Maven Central and the Gradle plugin portal and distributions, RubyGems, Debian and Ubuntu archives.
 * Code hosts (github.com and the like) are left out on purpose: a script could push what it read there.
 */
export const REGISTRY_HOSTS: readonly string[] = [
  "registry.npmjs.org",
  "registry.yarnpkg.com",
  "repo.yarnpkg.com",
  "nodejs.org",
  "pypi.org",
  "files.pythonhosted.org",
  "crates.io",
  "index.crates.io",
  "static.crates.io",
  "static.rust-lang.org",
  "proxy.golang.org",
  "sum.golang.org",
  "dl.google.com",
  "repo.maven.apache.org",
  "repo1.maven.org",
  "plugins.gradle.org",
  "plugins-artifacts.gradle.org",
  "services.gradle.org",
  "downloads.gradle.org",
  "rubygems.org",
  "index.rubygems.org",
  "deb.debian.org",
  "security.debian.org",
  "archive.ubuntu.com",
  "security.ubuntu.com",
  "ports.ubuntu.com",
];

/** The rules one sandbox's proxy applies. */
export interface EgressRules {
  policy: NetworkPolicy;
  /** Host names and `*.` wildcards the proxy may connect to (on public addresses only). */
  allow: readonly string[];
  /** Exact `host:port` pairs of the operator's that may be on private or loopback addresses (internal mirrors). */
  internal: readonly string[];
  /** The repository's own additions that the rules took (for the status comment). */
  fromRepository: readonly string[];
  /** Whether the operator lets repositories add hosts (`AIDER_BOT_EGRESS_REPO_ALLOW`). */
  repositoryMayAdd: boolean;
}

/** `AIDER_BOT_SANDBOX_NETWORK` as written: the three policies, and the older `0` (none) and `1` (open). */
export function parseNetworkSetting(raw: string | undefined): NetworkPolicy | null {
  if (raw === undefined) return "registries";
  const v = raw.trim().toLowerCase();
  if (v === "0") return "none";
  if (v === "1") return "open";
  return (NETWORK_POLICIES as readonly string[]).includes(v) ? (v as NetworkPolicy) : null;
}

/** A list of hosts as an operator writes it: commas, spaces or new lines between entries, `#` comments. */
export function splitList(text: string | undefined): string[] {
  if (!text) return [];
  return text
    .split("\n")
    .map((line) => line.replace(/#.*$/, ""))
    .join(",")
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Entries of an operator's list that are not host names or `*.` wildcards (a start-up problem each). */
export function badHostPatterns(entries: readonly string[]): string[] {
  return entries.filter((e) => !isHostPattern(e));
}

/** Entries of `AIDER_BOT_EGRESS_INTERNAL` that are not `host:port`. */
export function badInternalEntries(entries: readonly string[]): string[] {
  return entries.filter((e) => splitHostPort(e) === null);
}

/**
 * The rules of one run: the policy, the built-in registries (unless the operator replaced them) plus the operator's
 * hosts, the repository's `sandbox.network.allow` when the operator permits it, and the operator's internal pairs.
 * Entries of the repository's that are not plain host names or wildcards are dropped (an address, a port, a scheme):
 * a repository can never open an address, only a public host name.
 */
export function egressRules(input: {
  policy: NetworkPolicy;
  operatorAllow: readonly string[];
  replaceRegistries?: boolean;
  internal: readonly string[];
  repositoryAllow?: readonly string[];
  repositoryMayAdd: boolean;
}): EgressRules {
  const repo = input.repositoryMayAdd ? (input.repositoryAllow ?? []).filter(isHostPattern).map(normalizeHost) : [];
  const base = input.replaceRegistries ? [] : REGISTRY_HOSTS;
  const allow = [...new Set([...base, ...input.operatorAllow.map(normalizeHost), ...repo])];
  const internal = input.internal
    .map((e) => splitHostPort(e))
    .filter((e): e is { host: string; port: number } => e !== null)
    .map(hostPortKey);
  return {
    policy: input.policy,
    allow,
    internal: [...new Set(internal)],
    fromRepository: repo,
    repositoryMayAdd: input.repositoryMayAdd,
  };
}

/** `host:port` as the rules compare it (`[::1]:80` for IPv6). */
export function hostPortKey({ host, port }: { host: string; port: number }): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

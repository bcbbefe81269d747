import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ContainerBridge } from "../exec/container-sandbox.js";
import type { SandboxBridge } from "../exec/sandbox.js";
import type { Exec, ExecResult } from "../exec/types.js";
import type { LookupAll } from "./egress-decision.js";
import { startEgressProxy, type BlockedHost, type EgressProxy } from "./egress-proxy.js";
import { withBlockNote, type EgressReport } from "./egress-report.js";
import { forwarderBundle, type ForwarderBundle } from "./forwarder-bundle.js";
import { splitHostPort } from "./host-match.js";
import { egressRules, splitList, type EgressRules, type NetworkPolicy } from "./network-policy.js";
import {
  BWRAP_SOCKET,
  CONTAINER_SOCKET,
  afterForwarder,
  forwarderArgs,
  proxyEnv,
  withForwarder,
} from "./sandbox-bridge.js";
import type { UpstreamProxy } from "./upstream-proxy.js";

/** The operator's settings (AIDER_BOT_SANDBOX_NETWORK, AIDER_BOT_EGRESS_*), read by config/env. */
export interface EgressEnv {
  sandboxNetwork: NetworkPolicy;
  egressAllow?: readonly string[];
  egressAllowFile?: string;
  egressInternal?: readonly string[];
  egressRepoAllow: boolean;
  hostProxy?: UpstreamProxy;
}

export interface EgressLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface EgressSessionOptions {
  env: EgressEnv;
  /** The repository's `sandbox.network.allow` (from its default branch). */
  repositoryAllow?: readonly string[];
  /** Runs `ldd` for the container's forwarder. */
  exec: Exec;
  log: EgressLog;
  /** Where socat is on this host (default: looked up on PATH); null: none. */
  socatPath?: string | null;
  lookup?: LookupAll;
  /** Each refusal, for `/metrics` (the job process sends it to its parent). */
  onBlock?(policy: NetworkPolicy): void;
  /** Where the proxy's socket folder is made (default: the OS temp dir). */
  socketRoot?: string;
  /** The host's PATH, to find socat. */
  pathEnv?: string;
}

/**
 * One job's network policy: under `registries`, the filtering proxy (started with the first command that needs it,
 * stopped by `close()`), the hooks that bridge it into a bubblewrap sandbox or a container, the refusals counted, and
 * a note on a failed command's output when connections were refused while it ran. Under `none` and `open` there is
 * nothing to bridge. Without socat on the host, `registries` falls back to `none` (closed, never open) and says so.
 */
export interface EgressSession {
  readonly policy: NetworkPolicy;
  readonly rules: EgressRules | null;
  /** The bubblewrap hook, or null (no proxy for this policy). */
  bwrapBridge(): SandboxBridge | null;
  /** The container hook (its forwarder found on the host), or null. */
  containerBridge(): Promise<ContainerBridge | null>;
  /** Start the proxy if this policy has one; false when it could not start (the sandbox then has no network). */
  ready(): Promise<boolean>;
  /** Runs `run` and, when it failed after refusals, adds the note saying so to its output. */
  noted(run: () => Promise<ExecResult>): Promise<ExecResult>;
  report(): EgressReport;
  close(): Promise<void>;
}

export function createEgressSession(options: EgressSessionOptions): EgressSession {
  const { env, log } = options;
  const { policy, rules, socat, note: unavailable } = policyFor(options);
  let note = unavailable;
  const sandboxEnv = proxyEnv((env.egressInternal ?? []).map((e) => splitHostPort(e)?.host ?? ""));
  // A private folder per job: the socket alone is mounted into the sandbox.
  let dir: string | null = null;
  const socketPath = () => path.join((dir ??= privateDir(options.socketRoot)), "proxy.sock");
  let proxy: Promise<EgressProxy | null> | null = null;
  let live: EgressProxy | null = null;
  let final: BlockedHost[] = [];
  let closed = false;
  let bundle: Promise<ForwarderBundle | string> | null = null;
  let total = 0;

  const start = (): Promise<EgressProxy | null> =>
    (proxy ??= rules
      ? startEgressProxy({
          socketPath: socketPath(),
          rules,
          ...(options.lookup ? { lookup: options.lookup } : {}),
          ...(env.hostProxy ? { upstream: env.hostProxy } : {}),
          onBlock: (b) => {
            total += 1;
            log.warn(
              { network: policy, host: b.host, reason: b.reason },
              "the sandbox network policy refused a connection",
            );
            options.onBlock?.(policy);
          },
        })
          .then((p) => (live = p))
          .catch((error: unknown) => {
            note = `The filtering proxy could not start (${(error as Error).message}): the sandbox had no network.`;
            log.error({ err: error }, "the egress proxy could not start: sandboxes get no network");
            return null;
          })
      : Promise.resolve(null));

  const current = (): BlockedHost[] => live?.blocked() ?? final;

  return {
    policy,
    rules,
    bwrapBridge() {
      if (!rules || !socat) return null;
      return {
        socket: socketPath(),
        mount: BWRAP_SOCKET,
        env: sandboxEnv,
        wrap: (inner) => withForwarder([socat, ...forwarderArgs(BWRAP_SOCKET)], inner),
      };
    },
    async containerBridge() {
      if (!rules || !socat) return null;
      const b = await (bundle ??= forwarderBundle(options.exec, socat));
      if (typeof b !== "string")
        return {
          socket: socketPath(),
          mount: CONTAINER_SOCKET,
          env: sandboxEnv,
          files: b.mounts,
          forwarder: b.argv,
          wrap: afterForwarder,
        };
      note = `The container's forwarder could not be prepared (${b}): the sandbox had no network.`;
      log.error({ reason: b }, "the container's egress forwarder could not be prepared: containers get no network");
      return null;
    },
    async ready() {
      if (closed || !rules) return false;
      return (await start()) !== null;
    },
    async noted(run) {
      const before = current();
      const seen = total;
      const r = await run();
      return total === seen ? r : withBlockNote(r, before, current(), policy);
    },
    report() {
      return {
        policy,
        ...(note ? { note } : {}),
        blocked: current(),
        repositoryMayAdd: env.egressRepoAllow,
        added: rules?.fromRepository ?? [],
      };
    },
    async close() {
      closed = true;
      if (proxy) await proxy;
      final = current();
      const p = live;
      live = null;
      await p?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The policy in force and its rules: `registries` without socat on the host falls back to `none` (closed, never
 * open), with a note for the status comment.
 */
function policyFor(options: EgressSessionOptions): {
  policy: NetworkPolicy;
  rules: EgressRules | null;
  socat: string | null;
  note?: string;
} {
  const { env, log } = options;
  const socat = options.socatPath === undefined ? findOnPath("socat", options.pathEnv) : options.socatPath;
  if (env.sandboxNetwork === "registries" && socat === null) {
    log.error(
      { network: "registries" },
      "socat is not installed: sandboxes get no network (install socat for the registries policy)",
    );
    return {
      policy: "none",
      rules: null,
      socat,
      note: "The policy is `registries`, but socat (the sandbox's forwarder) is not installed on the app's host: the sandbox had no network at all. Install socat.",
    };
  }
  if (env.sandboxNetwork !== "registries") return { policy: env.sandboxNetwork, rules: null, socat };
  const rules = egressRules({
    policy: "registries",
    operatorAllow: [...(env.egressAllow ?? []), ...(env.egressAllowFile ? readHostFile(env.egressAllowFile, log) : [])],
    ...(env.egressAllowFile ? { replaceRegistries: true } : {}),
    internal: env.egressInternal ?? [],
    repositoryAllow: options.repositoryAllow ?? [],
    repositoryMayAdd: env.egressRepoAllow,
  });
  return { policy: "registries", rules, socat };
}

const privateDir = (root = os.tmpdir()) => mkdtempSync(path.join(root, `aider-egress-${process.pid}-`));

/** The first executable `name` on PATH, or null. */
function findOnPath(name: string, pathEnv = "/usr/local/bin:/usr/bin:/bin"): string | null {
  for (const dir of pathEnv.split(":")) {
    const file = path.join(dir || ".", name);
    if (path.isAbsolute(file) && existsSync(file)) return file;
  }
  return null;
}

function readHostFile(file: string, log: EgressLog): string[] {
  try {
    return splitList(readFileSync(file, "utf8"));
  } catch (error) {
    log.error(
      { err: error, file },
      "AIDER_BOT_EGRESS_ALLOW_FILE could not be read: only AIDER_BOT_EGRESS_ALLOW applies",
    );
    return [];
  }
}

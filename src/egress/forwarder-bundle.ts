import { realpathSync } from "node:fs";
import path from "node:path";
import type { Exec } from "../exec/types.js";
import { CONTAINER_EGRESS_DIR, CONTAINER_SOCKET, forwarderArgs } from "./sandbox-bridge.js";

/**
 * The forwarder for a container, taken from the app's host: its `socat`, the shared libraries `ldd` lists for it and
 * the host's dynamic loader, each bind-mounted read-only under /aider-egress/lib and started through that loader with
 * `--library-path`, so it runs in any image of the same architecture, whatever libc (or none) the image has.
 */
export interface ForwarderBundle {
  /** `host path → path inside`, read-only. */
  mounts: readonly (readonly [string, string])[];
  /** The command that starts the forwarder inside. */
  argv: readonly string[];
}

const LIB = `${CONTAINER_EGRESS_DIR}/lib`;

/** The shared objects of `ldd`'s answer: `name → path` (the loader under its own path), pure. */
export function parseLdd(text: string): { libs: [string, string][]; loader: string | null } {
  const libs: [string, string][] = [];
  let loader: string | null = null;
  for (const line of text.split("\n")) {
    const arrow = /^\s*(\S+)\s+=>\s+(\/\S+)\s+\(/.exec(line);
    if (arrow) {
      libs.push([arrow[1]!, arrow[2]!]);
      continue;
    }
    const bare = /^\s*(\/\S+)\s+\(/.exec(line);
    if (bare && /ld-linux|ld\.so|ld-musl/.test(bare[1]!)) loader = bare[1]!;
  }
  return { libs, loader };
}

/** The bundle for the `socat` at `socatPath`, or what is missing. */
export async function forwarderBundle(exec: Exec, socatPath: string): Promise<ForwarderBundle | string> {
  const r = await exec.run({ command: "ldd", args: [socatPath], cwd: "/", timeoutMs: 10_000 });
  if (r.exitCode !== 0) return `ldd ${socatPath} failed: ${(r.spawnError ?? r.output).trim().slice(0, 200)}`;
  const { libs, loader } = parseLdd(r.stdout);
  if (!loader) return `no dynamic loader found for ${socatPath}`;
  const mounts: [string, string][] = [
    [real(socatPath), `${LIB}/socat`],
    [real(loader), `${LIB}/ld.so`],
    ...libs.map(([name, file]): [string, string] => [real(file), `${LIB}/${path.basename(name)}`]),
  ];
  return {
    mounts,
    argv: [`${LIB}/ld.so`, "--library-path", LIB, `${LIB}/socat`, ...forwarderArgs(CONTAINER_SOCKET)],
  };
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

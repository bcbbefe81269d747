/**
 * The sandbox side of the egress bridge (pure): the sandbox has its own network namespace with nothing but loopback,
 * and the proxy's Unix socket is mounted into it; a forwarder started inside listens on the sandbox's own
 * 127.0.0.1:{@link SANDBOX_PROXY_PORT} and passes each connection to that socket. The proxy variables name that port.
 * Unsetting them leaves a process with no route at all: there is no interface but loopback and no resolver.
 */

/** The forwarder's port on the sandbox's loopback (the namespace is the sandbox's own: no other user of it). */
export const SANDBOX_PROXY_PORT = 3128;

/** Where bubblewrap mounts the proxy's socket (inside the sandbox's private /tmp). */
export const BWRAP_SOCKET = "/tmp/.aider-egress.sock";

/** Where a container gets the socket and the forwarder's files. */
export const CONTAINER_EGRESS_DIR = "/aider-egress";
export const CONTAINER_SOCKET = `${CONTAINER_EGRESS_DIR}/proxy.sock`;

/**
 * The proxy variables every common client reads (curl, git, pip, npm, yarn, Go, Cargo, Python's and Node's HTTP
 * libraries that honour them). `NO_PROXY` keeps the sandbox's own loopback direct (test servers a suite starts), except
 * a loopback host the operator's internal list names: that one lives on the app's host and is reached through the proxy.
 */
export function proxyEnv(internalHosts: readonly string[] = []): Record<string, string> {
  const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
  const noProxy = ["localhost", "127.0.0.1", "::1"].filter((h) => !internalHosts.includes(h)).join(",");
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    YARN_HTTP_PROXY: url,
    YARN_HTTPS_PROXY: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
}

/**
 * socat's arguments for the forwarder: the loopback port, one child per connection, to the mounted socket. `nodelay`
 * (TCP_NODELAY, inherited by each accepted connection): socat passes on the proxy's answer as it reads it, often in
 * two writes (a TLS record of headers, then the body's); with Nagle's algorithm the second waited for the client's
 * delayed ACK, ~40 ms per request on a kept-alive tunnel (1.5–2 ms without). npm's installs make hundreds of requests.
 */
export function forwarderArgs(socket: string): string[] {
  return [`TCP-LISTEN:${SANDBOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr,nodelay`, `UNIX-CONNECT:${socket}`];
}

/**
 * A POSIX-shell snippet that returns once something listens on 127.0.0.1:{@link SANDBOX_PROXY_PORT} of this
 * namespace (read from /proc/net/tcp with shell builtins only, which every image with /bin/sh runs), or after about 5 s.
 */
export function waitForForwarder(): string {
  const local = `0100007F:${SANDBOX_PROXY_PORT.toString(16).toUpperCase().padStart(4, "0")}`;
  return [
    `aider_egress_up() { while read -r _ a _ s _; do [ "$a $s" = "${local} 0A" ] && return 0; done < /proc/net/tcp; return 1; }`,
    `aider_egress_n=0`,
    `until aider_egress_up; do aider_egress_n=$((aider_egress_n+1)); [ $aider_egress_n -gt 700 ] && break; [ $aider_egress_n -gt 200 ] && sleep 0.01; done`,
  ].join("\n");
}

/**
 * The argv that starts the forwarder in the background, waits for it, then runs `inner` in its place (bubblewrap:
 * a fresh forwarder for each command, ended with the sandbox).
 */
export function withForwarder(forwarder: readonly string[], inner: readonly string[]): string[] {
  const script = `${forwarder.map(quote).join(" ")} </dev/null >/dev/null 2>&1 &\n${waitForForwarder()}\nexec "$@"`;
  return ["/bin/sh", "-c", script, "aider-egress", ...inner];
}

/** The argv that waits for the container's forwarder (started with the container), then runs `inner`. */
export function afterForwarder(inner: readonly string[]): string[] {
  return ["/bin/sh", "-c", `${waitForForwarder()}\nexec "$@"`, "aider-egress", ...inner];
}

/** One word for a POSIX shell, single-quoted. */
export function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

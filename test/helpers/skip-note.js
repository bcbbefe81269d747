/**
 * How a test skipped for a missing tool names itself, shared by test/helpers/needs.ts (which marks the title) and
 * test/helpers/needs-reporter.js (which lists and counts them). Plain JS: jest loads reporters without a transform.
 */

/** Each tool a test may need: what to call it and how to install it (Debian/Ubuntu). */
export const NEEDS = {
  bubblewrap: { tool: "bubblewrap", install: "apt-get install bubblewrap" },
  redis: { tool: "redis-server", install: "apt-get install redis-server" },
  podman: { tool: "Podman", install: "apt-get install podman runc" },
  registry: { tool: "docker-registry", install: "apt-get install docker-registry" },
  socat: { tool: "socat", install: "apt-get install socat" },
  pytest: { tool: "pytest for python3", install: "apt-get install python3-pytest" },
  cargo: { tool: "Rust's cargo", install: "apt-get install cargo" },
  docker: {
    tool: "the docker client",
    install: "apt-get install docker.io (only its client is used; no daemon needed)",
  },
};

/** Where the reporter leaves the run's summary of such skips for the global teardown to print (a global of jest's main process). */
export const SKIPPED_SUMMARY = Symbol.for("aider-bot.skipped-for-missing-tools");

const MARK = /\[skipped: needs (bubblewrap|redis|podman|docker|registry|socat|pytest|cargo): ([^\]]*)\]$/;

/** The title of a test or group skipped because `need` is missing here, `why` said in one line. */
export function skipTitle(name, need, why) {
  return `${name} [skipped: needs ${need}: ${why.replace(/[\]\n]/g, " ")}]`;
}

/** The need and reason a skipped title carries, or null when the title is not one of ours. */
export function parseSkipTitle(title) {
  const m = MARK.exec(title);
  return m ? { need: m[1], why: m[2] } : null;
}

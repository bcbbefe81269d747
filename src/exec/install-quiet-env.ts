/**
 * Settings every sandbox gives a repository's commands (bubblewrap and containers alike), each yielding to a value the
 * request sets itself: package managers' extra work around an install that CI never reads and that changes no exit
 * code. Measured on a real `npm install` through the registries proxy (bench `sandbox-cost`):
 *
 * - `npm_config_audit=false`: the advisory report `npm install` computes and POSTs after every install (one request
 *   and a walk of the tree). An explicit `npm audit` command still audits: this setting is only the install's report.
 * - `npm_config_fund=false`: the funding message, another walk of the installed tree.
 * - `npm_config_update_notifier=false`: npm's check for a newer npm, a GET of npm's own packument on the first install
 *   of each repository's cache (it lasts a week there) — the host's npm skips it when CI is set or its user config
 *   says so, neither of which the sandbox sees.
 * - `PIP_DISABLE_PIP_VERSION_CHECK=1`: pip's check for a newer pip, the same kind of request on each pip run.
 *
 * A project `.npmrc` that sets these is overridden (npm reads the environment after the project's file): the
 * install's outcome is the same.
 */
export const INSTALL_QUIET_ENV: Readonly<Record<string, string>> = {
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
  PIP_DISABLE_PIP_VERSION_CHECK: "1",
};

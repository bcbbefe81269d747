import { GitError } from "./git-errors.js";
import type { GitRun } from "./git-runner.js";

/** Local config keys that could send a request (and so the token header) somewhere other than the clone URL. */
const REDIRECTING = /^(url\..+\.(insteadof|pushinsteadof)|remote\.[^.]+\.(pushurl|proxy)|http\.(.+\.)?(proxy|extraheader)|core\.(gitproxy|sshcommand))$/i;

/**
 * Before a command that carries the installation token: the repository's scripts (setup, lint, test) ran in
 * this checkout and could have rewritten `.git/config`. Refuse when the remote URL is not the one we cloned or
 * local config redirects or proxies requests, so the token header only ever goes to the clone URL.
 */
export async function guardRemote(run: GitRun, dir: string, remote: string, expectedUrl: string | undefined): Promise<void> {
  const local = await run(dir, ["config", "--local", "--list", "-z"], { allowFail: true });
  const entries = local.stdout.split("\0").filter(Boolean).map((e) => {
    const nl = e.indexOf("\n");
    return nl < 0 ? { key: e, value: "" } : { key: e.slice(0, nl), value: e.slice(nl + 1) };
  });
  const bad = entries.filter((e) => REDIRECTING.test(e.key)).map((e) => e.key);
  if (expectedUrl !== undefined) {
    const urls = entries.filter((e) => e.key.toLowerCase() === `remote.${remote}.url`).map((e) => e.value);
    if (urls.length !== 1 || urls[0] !== expectedUrl) bad.push(`remote.${remote}.url`);
  }
  if (bad.length > 0) {
    throw new GitError(`Refusing to send credentials: the checkout's git config was changed after cloning (${[...new Set(bad)].join(", ")}).`, "");
  }
}

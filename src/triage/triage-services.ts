import type { Logger } from "pino";
import type { RepoConfig } from "../config/repo-config.js";
import type { GitHubClient } from "../github/github-client.js";
import type { LookupCache } from "./lookup-cache.js";
import type { RunJobData, RunQueue } from "../run/run-job-data.js";
import type { RunRequest } from "../run/run-request.js";

/** What triage of one event reads GitHub with: the installation's client, the config loader and a logger. */
export interface TriageIo {
  api: GitHubClient;
  /** `.github/aider.yml` from the default branch, parsed YAML (Probot's context.config, so `_extends` works). */
  loadConfig(): Promise<unknown>;
  log: Logger;
}

export interface AppServices {
  /** Where run jobs go (the durable engine, keyed `owner/repo#n`: one run at a time per PR or issue). */
  runs: RunQueue;
  botLogin(): Promise<string>;
  /** The App's own id, when known: comments it made are recognised by `performed_via_github_app` too. */
  botAppId?(): Promise<number | undefined>;
  defaults: { model: string; weakModel?: string; fallbackModels?: string[] };
  /**
   * Starts minting a queued run's tokens while triage writes its first feedback, for this process's run handler to
   * take (see app/job-token-prefetch); absent where runs are picked up by other processes (Redis).
   */
  runTokens?: {
    start(job: { jobId: string; installationId: number; repo: string }): void;
    drop(jobId: string): void;
  };
  /**
   * Starts what a queued run's job would otherwise start on its own, with the job's tokens once minted, for this
   * process's run handler to hand to the job: the fetch of its branch into the repository's mirror (git token, see
   * app/mirror-prefetch) and its first GitHub reads (API token, see app/reads-prefetch). Absent where runs are picked
   * up by other processes (Redis). Started only for a request triage queues, never before it is authorised.
   */
  runAhead?: {
    start(req: RunRequest): void;
    drop(jobId: string): void;
  };
  /** Config and permission reads shared by the triage of events arriving together (see lookup-cache). */
  lookups?: LookupCache;
  /** The answer to `/aider usage` (markdown) from the spend ledger; absent where no ledger is open. */
  usage?(where: { installationId: number; owner: string; repo: string }, budget: RepoConfig["budget"]): Promise<string>;
}

export type HandleResult =
  | { kind: "ignored"; reason: string }
  | { kind: "replied"; reason: string }
  | { kind: "enqueued"; jobId: string; context: RunJobData }
  | { kind: "cancelled"; count: number };

/** `read()`, or its answer shared with the triage of other events on the same key (see lookup-cache). */
export function shared<T>(services: AppServices, key: string, read: () => Promise<T>): Promise<T> {
  // GitHub's owner, repository and user names are case-insensitive.
  return services.lookups ? services.lookups.get(key.toLowerCase(), read) : read();
}

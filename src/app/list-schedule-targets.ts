import { parse } from "yaml";
import type { Logger } from "pino";
import { parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import type { GitHubClient } from "../github/github-client.js";
import { listInstallationRepositories, listInstallations, readRepoFile } from "../github/installations.js";
import type { ScheduleTarget } from "../triage/schedule-key.js";

/**
 * Every installed repository with a valid `.github/aider.yml` that has schedules. Invalid configs are skipped with a
 * log line (the next command on that repository reports the problems in a comment).
 */
export async function listScheduleTargets(deps: {
  appApi: GitHubClient;
  installationApi(id: number): Promise<GitHubClient>;
  log: Logger;
}): Promise<ScheduleTarget[]> {
  const out: ScheduleTarget[] = [];
  for (const inst of await listInstallations(deps.appApi)) {
    const api = await deps.installationApi(inst.id);
    for (const r of await listInstallationRepositories(api)) {
      if (r.archived) continue;
      const config = await readRepoConfig(api, r.owner, r.repo, deps.log);
      if (!config || config.schedules.length === 0) continue;
      out.push({
        installationId: inst.id,
        owner: r.owner,
        repo: r.repo,
        defaultBranch: r.defaultBranch,
        cloneUrl: r.cloneUrl,
        ...(r.htmlUrl ? { webUrl: r.htmlUrl } : {}),
        ...(r.language ? { language: r.language } : {}),
        config,
      });
    }
  }
  return out;
}

/**
 * A repository's `.github/aider.yml` from its default branch (the contents API reads the default branch), or null
 * when it has none or it is invalid (logged; the next command on that repository reports the problems).
 */
export async function readRepoConfig(
  api: GitHubClient,
  owner: string,
  repo: string,
  log: Logger,
): Promise<RepoConfig | null> {
  let raw: unknown;
  try {
    const text = await readRepoFile(api, { owner, repo, path: ".github/aider.yml" });
    if (text === null) return null; // no config file: no schedules
    raw = parse(text);
  } catch (error) {
    // Unreadable or not YAML: no schedules from it this time (the next command there reports a bad config).
    log.warn({ repo: `${owner}/${repo}`, err: error }, "could not read .github/aider.yml: schedules skipped");
    return null;
  }
  const parsed = parseRepoConfig(raw);
  if (parsed.ok) return parsed.config;
  log.warn({ repo: `${owner}/${repo}`, problems: parsed.problems }, "invalid .github/aider.yml: schedules skipped");
  return null;
}

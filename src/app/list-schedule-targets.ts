import { parse } from "yaml";
import type { Logger } from "pino";
import { parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import type { GitHubClient } from "../github/github-client.js";
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
  const installations = (await deps.appApi.request("GET /app/installations", { per_page: 100 })).data as {
    id: number;
  }[];
  for (const inst of installations) {
    const api = await deps.installationApi(inst.id);
    const repos = (
      (await api.request("GET /installation/repositories", { per_page: 100 })).data as {
        repositories: {
          name: string;
          owner: { login: string };
          default_branch: string;
          clone_url: string;
          html_url?: string;
          archived?: boolean;
          language?: string | null;
        }[];
      }
    ).repositories;
    for (const r of repos) {
      if (r.archived) continue;
      const config = await readRepoConfig(api, r.owner.login, r.name, deps.log);
      if (!config || config.schedules.length === 0) continue;
      out.push({
        installationId: inst.id,
        owner: r.owner.login,
        repo: r.name,
        defaultBranch: r.default_branch,
        cloneUrl: r.clone_url,
        ...(r.html_url ? { webUrl: r.html_url } : {}),
        ...(typeof r.language === "string" && r.language ? { language: r.language } : {}),
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
    const res = await api.request("GET /repos/{owner}/{repo}/contents/{path}", {
      owner,
      repo,
      path: ".github/aider.yml",
      mediaType: { format: "raw" },
    });
    raw = parse(String(res.data));
  } catch {
    return null; // no config file: no schedules
  }
  const parsed = parseRepoConfig(raw);
  if (parsed.ok) return parsed.config;
  log.warn({ repo: `${owner}/${repo}`, problems: parsed.problems }, "invalid .github/aider.yml: schedules skipped");
  return null;
}

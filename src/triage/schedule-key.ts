import { createHash } from "node:crypto";
import type { RepoConfig } from "../config/repo-config.js";

/** A repository with schedules: where a tick runs, and the config it was read with. */
export interface ScheduleTarget {
  installationId: number;
  owner: string;
  repo: string;
  defaultBranch: string;
  cloneUrl: string;
  /** The repository's web address (`html_url`), for commit links; without it, the clone URL less `.git`. */
  webUrl?: string;
  /** Its main language as GitHub detects it (`language`): the grammar a run loads while it clones. */
  language?: string;
  config: RepoConfig;
}

export type Schedule = RepoConfig["schedules"][number];

/** A schedule entry's identity: changing its cron or message makes it a new entry. */
export function scheduleKey(t: Pick<ScheduleTarget, "owner" | "repo">, index: number, s: Schedule): string {
  const digest = createHash("sha1")
    // A time zone joins the identity only when set, so the keys of existing UTC entries stay as they were.
    .update(`${s.cron}\n${s.message}\n${s.files.join(",")}\n${s.branch ?? ""}${s.timezone ? `\n${s.timezone}` : ""}`)
    .digest("hex")
    .slice(0, 10);
  return `${t.owner}/${t.repo}#schedule-${index}-${digest}`;
}

import { parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import { fetchIssueComments, priorRunsFrom } from "../context/fetch/fetch-issue-comments.js";
import { RepoGitHub } from "../github/repo-github.js";
import type { CheckSuiteEvent } from "../edge/bot-event.js";
import { countAutofixRounds } from "../report/autofix-rounds.js";
import { enqueueAutofix } from "./act/enqueue-autofix.js";
import { stopAutofix } from "./act/stop-autofix.js";
import { decideAutofix } from "./decide-autofix.js";
import type { AppServices, HandleResult, TriageIo } from "./triage-services.js";
import { pushedByBot } from "./pushed-by-bot.js";

const FAILED = new Set(["failure", "timed_out"]);

const ignored = (reason: string): HandleResult => ({ kind: "ignored", reason });

/**
 * `check_suite.completed` (`ci.autofix`): when checks fail on a commit the bot pushed, queue a `fix-ci` run by
 * itself, at most `ci.max_rounds` per pull request (counted from its own status comments), and say so once when the
 * limit is reached. Gather → decide ({@link decideAutofix}, pure) → act; the cheap checks come first: most suites
 * pass, and most repositories never opt in.
 */
export async function triageCheckSuite(
  event: CheckSuiteEvent,
  io: TriageIo,
  services: AppServices,
): Promise<HandleResult> {
  const { suite } = event;
  if (!suite.conclusion || !FAILED.has(suite.conclusion))
    return ignored(`check suite concluded ${suite.conclusion ?? "without a conclusion"}`);
  const config = await autofixConfig(io);
  if (!config.ok) return ignored(config.reason);
  const pull = suite.pullNumbers[0];
  if (pull === undefined) return ignored("the commit belongs to no open pull request of this repository");
  const { owner, name: repo } = event.repository;
  const botLogin = await services.botLogin();
  const github = RepoGitHub.create({ octokit: io.api, owner, repo });
  const { comments } = await fetchIssueComments(github, pull);
  const rounds = countAutofixRounds(comments, botLogin, suite.headSha);
  if (rounds.alreadyForSha) return ignored("an automatic fix already ran for this commit");
  const decision = decideAutofix({
    autofix: config.value.ci.autofix,
    maxRounds: config.value.ci.max_rounds,
    conclusion: suite.conclusion,
    suiteAppId: suite.appId,
    botAppId: await botAppIdFor(event, services, botLogin),
    headPushedByBot: pushedByBot(priorRunsFrom(comments, botLogin), suite.headSha),
    pullNumbers: suite.pullNumbers,
    roundsDone: rounds.rounds,
  });
  const log = io.log.child({ delivery: event.delivery, repo: `${owner}/${repo}`, number: pull });
  const ctx = { github, services, botLogin, log };
  if (decision.kind === "skip") return ignored(decision.reason);
  if (decision.kind === "stop") return stopAutofix(decision, rounds.rounds, ctx);
  return enqueueAutofix(event, { ...decision, config: config.value }, ctx);
}

/** The default branch's config, if it turns `ci.autofix` on. */
async function autofixConfig(io: TriageIo): Promise<{ ok: true; value: RepoConfig } | { ok: false; reason: string }> {
  let raw: unknown;
  try {
    raw = await io.loadConfig();
  } catch (error) {
    // A config that cannot be read cannot have opted in; the next command on the PR reports the problem.
    return { ok: false, reason: `config unreadable: ${error instanceof Error ? error.message : String(error)}` };
  }
  const parsed = parseRepoConfig(raw);
  if (!parsed.ok) return { ok: false, reason: "invalid .github/aider.yml" };
  if (!parsed.config.ci.autofix) return { ok: false, reason: "ci.autofix is off" };
  return { ok: true, value: parsed.config };
}

/**
 * The App id the suite is compared with: our own check run's suite must never start a fix of itself, and it is
 * known from the suite's app slug too (`<slug>[bot]` is the bot's login).
 */
async function botAppIdFor(event: CheckSuiteEvent, services: AppServices, botLogin: string): Promise<number> {
  const slug = event.suite.appSlug;
  if (slug !== undefined && `${slug}[bot]`.toLowerCase() === botLogin.toLowerCase()) return event.suite.appId;
  return (await services.botAppId?.()) ?? -1;
}

import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub, GitHubError, graphqlFailureKind } from "./github-error.js";
import { jsonField } from "./json-field.js";

// The commit's signature comes back in the same answer: reading it with a second request (REST `getCommit`) cost
// every published run one more round trip to GitHub between its commit and its final status.
const MUTATION = `mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid url signature { isValid } } }
}`;

/** One commit for GitHub's `createCommitOnBranch`: contents are base64. */
export interface ApiCommitRequest {
  branch: string;
  expectedHeadOid: string;
  message: { headline: string; body: string };
  fileChanges: { additions: { path: string; contents: string }[]; deletions: { path: string }[] };
}

/** What GitHub made of it: the new commit (and whether it reports it verified), a moved branch, or a refusal. */
export type ApiCommitResult =
  | { kind: "made"; oid: string; verified: boolean | null }
  | { kind: "moved"; reason: string }
  | { kind: "refused"; reason: string };

interface GraphqlAnswer {
  data?: {
    createCommitOnBranch?: { commit?: { oid?: string; url?: string; signature?: { isValid?: unknown } | null } };
  } | null;
  errors?: { type?: string; message?: string }[];
}

/**
 * One commit made by GitHub itself (GraphQL `createCommitOnBranch`), which GitHub signs: the branch must still point
 * at `expectedHeadOid` (a compare-and-swap, never a force). A moved branch and a refusal (a fork that does not let
 * the App push, a missing permission) are answers, not throws; anything else throws a {@link GitHubError}. The
 * commit's `verification` is read back, as GitHub reports it (null when it could not be read).
 */
export async function createCommitOnBranch(
  api: GitHubClient,
  where: RepoRef,
  req: ApiCommitRequest,
): Promise<ApiCommitResult> {
  const doing = `Creating the commit on ${where.owner}/${where.repo} branch ${req.branch}`;
  const input = {
    branch: { repositoryNameWithOwner: `${where.owner}/${where.repo}`, branchName: req.branch },
    expectedHeadOid: req.expectedHeadOid,
    message: { headline: req.message.headline, ...(req.message.body ? { body: req.message.body } : {}) },
    fileChanges: req.fileChanges,
  };
  // Octokit's `graphql` knows the endpoint (`/graphql`, or `/api/graphql` on GitHub Enterprise); a GraphQL error
  // comes back as a throw carrying GitHub's `errors`, read here as an answer.
  const answer: GraphqlAnswer = await callGitHub(doing, async () => {
    try {
      return { data: await api.graphql<NonNullable<GraphqlAnswer["data"]>>(MUTATION, { input }) };
    } catch (error) {
      const errors: unknown = jsonField(error, "errors");
      if (Array.isArray(errors) && errors.length > 0) return { errors: errors.map(graphqlError) };
      throw error;
    }
  });
  const error = answer.errors?.[0];
  if (error) {
    const message = String(error.message ?? "unknown error").slice(0, 300);
    if (error.type === "STALE_DATA" || /Expected branch to point to/i.test(message))
      return { kind: "moved", reason: message };
    const kind = graphqlFailureKind(error.type);
    if (kind === "forbidden") return { kind: "refused", reason: message };
    throw new GitHubError(doing, {
      kind,
      status: kind === "not-found" ? 404 : kind === "unauthorized" ? 401 : 422,
      githubMessage: message,
    });
  }
  const made = answer.data?.createCommitOnBranch?.commit;
  const oid = made?.oid;
  if (!oid)
    throw new GitHubError(doing, {
      kind: "other",
      status: 200,
      githubMessage: "GitHub answered without the new commit",
    });
  return { kind: "made", oid, verified: verifiedOf(made) };
}

/**
 * `verification.verified` as GitHub's REST API reports it, from the commit's GraphQL `signature`: no signature is an
 * unsigned commit (not verified), else its `isValid`; null when the answer does not say (an unexpected shape).
 */
export function verifiedOf(commit: { signature?: { isValid?: unknown } | null } | undefined): boolean | null {
  if (!commit || !("signature" in commit) || commit.signature === undefined) return null;
  if (commit.signature === null) return false;
  return typeof commit.signature.isValid === "boolean" ? commit.signature.isValid : null;
}

/** A new branch at `sha` (`POST /repos/{o}/{r}/git/refs`); an existing branch of that name is a validation error. */
export async function createBranchRef(api: GitHubClient, where: RepoRef, branch: string, sha: string): Promise<void> {
  await callGitHub(`Creating the branch ${branch} on ${where.owner}/${where.repo}`, () =>
    api.request("POST /repos/{owner}/{repo}/git/refs", {
      owner: where.owner,
      repo: where.repo,
      ref: `refs/heads/${branch}`,
      sha,
    }),
  );
}

/** One entry of a GraphQL answer's `errors`, as far as it has a type and a message. */
function graphqlError(entry: unknown): { type?: string; message?: string } {
  const type = jsonField(entry, "type");
  const message = jsonField(entry, "message");
  return {
    ...(typeof type === "string" ? { type } : {}),
    ...(typeof message === "string" ? { message } : {}),
  };
}

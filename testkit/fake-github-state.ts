import type { Shape } from "./github-shapes.js";

/** In-memory state of the fake GitHub used by the demo and the end-to-end tests. */
export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  user: string;
  labels: string[];
  /** Closed (or, for a pull request, merged or closed); open when unset. */
  closed?: boolean;
  /** Set for pull requests (GitHub numbers issues and PRs together). */
  pull?: {
    head: string;
    base: string;
    draft: boolean;
    requestedReviewers: string[];
    headRepoFullName?: string;
    maintainerCanModify?: boolean;
  };
}

export interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

export interface FakeReviewComment {
  id: number;
  pullNumber: number;
  body: string;
  user: string;
  path: string;
  line: number;
  inReplyTo?: number;
}

/** A Check Run's status and conclusion, as GitHub documents them. */
export type CheckRunStatus = NonNullable<Shape<"check-run">["status"]>;
export type CheckRunConclusion = NonNullable<Shape<"check-run">["conclusion"]>;

export interface FakeCheckRun {
  id: number;
  name: string;
  headSha: string;
  status: CheckRunStatus;
  conclusion?: CheckRunConclusion;
  output?: { title?: string; summary?: string; text?: string };
}

export interface FakeRepo {
  owner: string;
  name: string;
  defaultBranch: string;
  /** login → admin | maintain | write | triage | read | none */
  permissions: Record<string, string>;
  issues: Map<number, FakeIssue>;
  comments: FakeComment[];
  reviewComments: FakeReviewComment[];
  reactions: { subject: string; content: string; user: string }[];
  checkRuns: FakeCheckRun[];
  /**
   * A private repository: its contents (files, trees, commits) are read only with a token that may read them — one
   * minted with `contents` among its permissions, or one without a scope of its own. A public one's are anyone's.
   */
  private?: boolean;
  /** A fork whose owner refuses the App's commits even where maintainer edits are allowed (GitHub answers 403). */
  refuseAppPushes?: boolean;
  /** GitHub's commit API failing for this repository (`createCommitOnBranch` answers 502, as GitHub does when down). */
  commitApiDown?: boolean;
}

export interface RecordedApiCall {
  method: string;
  path: string;
  status: number;
  authorization?: string;
  body?: unknown;
  /** When the call was answered (epoch ms), for timelines in benchmarks. */
  at?: number;
}

export interface TokenScope {
  token: string;
  installationId: number;
  /** Repository names the token was limited to; undefined: every repository of the installation. */
  repositories?: string[];
  /** Permissions asked for; undefined: all of the App's. */
  permissions?: Record<string, string>;
}

/**
 * An installation of the App: the account it is on (its repositories are the ones tokens may name) and the
 * permissions its owner granted. GitHub mints no token asking for more than those.
 */
export interface FakeInstallation {
  id: number;
  /** The user or organisation; unset: the owner of the first repository added. */
  account?: string;
  permissions: Record<string, string>;
}

/** What the App asks for (README "Permissions the App asks for"): what a fake installation grants unless told. */
export const ALL_APP_PERMISSIONS: Readonly<Record<string, string>> = {
  contents: "write",
  issues: "write",
  pull_requests: "write",
  checks: "write",
  actions: "read",
  metadata: "read",
};

/** An attachment: its bytes, or `size` bytes streamed (a PNG signature, then zeros) for a large one. */
export interface FakeAsset {
  contentType: string;
  body?: Buffer;
  size?: number;
}

export class FakeGitHubState {
  readonly repos = new Map<string, FakeRepo>();
  readonly calls: RecordedApiCall[] = [];
  /** Installation tokens handed out; git pushes must present one. */
  readonly issuedTokens: string[] = [];
  /** What each token was asked for (`POST /app/installations/{id}/access_tokens`), so tests can assert the scope. */
  readonly tokenScopes: TokenScope[] = [];
  /** Uploaded attachments served at `/user-attachments/assets/{id}`: bytes, or a size to stream. */
  readonly assets = new Map<string, FakeAsset>();
  /** Every request for an attachment, with its Authorization header (for token and fetch assertions). */
  readonly assetRequests: { path: string; authorization?: string }[] = [];
  /** Commits GitHub signed (made through `createCommitOnBranch`): `verification.verified` on the commit. */
  readonly verifiedCommits = new Set<string>();
  /** Every commit made through `createCommitOnBranch`, in order. */
  readonly apiCommits: { repo: string; branch: string; oid: string }[] = [];
  /** The App's installations (one, id 1, granting every permission the App asks for, unless a test says otherwise). */
  readonly installations = new Map<number, FakeInstallation>([[1, { id: 1, permissions: { ...ALL_APP_PERMISSIONS } }]]);
  private nextId = 1000;

  constructor(readonly botLogin: string) {}

  id(): number {
    return this.nextId++;
  }

  repo(owner: string, name: string): FakeRepo | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  addRepo(owner: string, name: string, defaultBranch: string, permissions: Record<string, string>): FakeRepo {
    const repo: FakeRepo = {
      owner,
      name,
      defaultBranch,
      permissions,
      issues: new Map(),
      comments: [],
      reviewComments: [],
      reactions: [],
      checkRuns: [],
    };
    this.repos.set(`${owner}/${name}`.toLowerCase(), repo);
    const first = this.installations.get(1);
    if (first && first.account === undefined) first.account = owner;
    return repo;
  }

  /** The permissions a token this fake issued carries (those asked for, else its installation's); null: not one. */
  tokenPermissions(token: string | null): Record<string, string> | null {
    const scope = token ? this.tokenScopes.find((s) => s.token === token) : undefined;
    if (!scope) return null;
    return scope.permissions ?? { ...(this.installations.get(scope.installationId)?.permissions ?? {}) };
  }

  nextIssueNumber(repo: FakeRepo): number {
    return Math.max(0, ...repo.issues.keys()) + 1;
  }
}

// The message layout is commit policy, kept in one module with the subject, body and trailer rules.
export { composeCommitMessage, type CommitMessageParts } from "../coder/commit-policy.js";

import { capMarkdown, COMMENT_LIMIT } from "./cap-markdown.js";
import { redactDeep, type SecretRedactor } from "../security/redact-secrets.js";
import { isJsonObject, jsonField } from "./json-field.js";

/** Request fields that carry text we write to GitHub: comment/issue/PR bodies, titles, Check Run output, commit messages. */
const TEXT_FIELDS = ["body", "title", "summary", "text", "output", "message"] as const;
/** GitHub refuses Check Run `output.summary` / `output.text` over 65,535 characters. */
const CHECK_OUTPUT_LIMIT = 65_535;

/**
 * The text fields of one GitHub request, redacted and then fitted to GitHub's size limits (pure): this is the last
 * thing between our text and GitHub, so a secret that slipped into any rendering is still removed, and a body that
 * would be refused with 422 is cut (keeping its head, where our markers and the outcome are) instead.
 * Other fields (route parameters, headers, ids) are returned as they were.
 */
export function guardWriteParams(params: Record<string, unknown>, redactor: SecretRedactor): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  for (const field of TEXT_FIELDS) {
    if (!(field in out) || out[field] === undefined || out[field] === null) continue;
    out[field] = redactDeep(out[field], redactor.redact);
  }
  if (typeof out.body === "string" && out.body.length > COMMENT_LIMIT - 1_000) out.body = capMarkdown(out.body);
  const output = out.output;
  if (isJsonObject(output)) {
    out.output = {
      ...output,
      ...(typeof output.summary === "string" ? { summary: capText(output.summary, CHECK_OUTPUT_LIMIT) } : {}),
      ...(typeof output.text === "string" ? { text: capText(output.text, CHECK_OUTPUT_LIMIT) } : {}),
    };
  }
  return out;
}

function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = "\n\n… (truncated)";
  return text.slice(0, max - note.length) + note;
}

interface OctokitHooks {
  hook: {
    before(name: "request", fn: (options: Record<string, unknown>) => void): void;
    after(name: "request", fn: (response: { data?: unknown }, options: Record<string, unknown>) => void): void;
  };
}

/**
 * An Octokit plugin doing the same for every request of every Octokit built from it (Probot's app and installation
 * clients), and registering each installation token GitHub mints with the redactor, so a token that reaches a
 * log line or a comment is removed too.
 * `ProbotOctokit.plugin(githubWriteGuard(redactor))`
 */
export function githubWriteGuard(redactor: SecretRedactor) {
  return (octokit: OctokitHooks): void => {
    octokit.hook.before("request", (options) => {
      Object.assign(options, guardWriteParams(options, redactor));
    });
    octokit.hook.after("request", (response, options) => {
      if (typeof options.url === "string" && /\/access_tokens$/.test(options.url)) {
        const token = jsonField(response.data, "token");
        redactor.add(typeof token === "string" ? token : undefined);
      }
    });
  };
}

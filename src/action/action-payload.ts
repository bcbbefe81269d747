import { z } from "zod";
import { ActionSetupError } from "../config/action-env.js";

/**
 * The fields of the workflow's event file the Action reads itself (the rest goes to the App's intake, which types
 * each webhook on its own): the repository's clone address and default branch, a schedule's cron, a dispatch's
 * inputs, ref and sender.
 */
const actionPayloadSchema = z.looseObject({
  repository: z.looseObject({ clone_url: z.string().nullish(), default_branch: z.string().nullish() }).nullish(),
  schedule: z.string().nullish(),
  inputs: z.record(z.string(), z.unknown()).nullish(),
  ref: z.string().nullish(),
  sender: z
    .looseObject({ login: z.string().nullish(), type: z.string().nullish(), id: z.number().nullish() })
    .nullish(),
});

export type ActionPayload = z.infer<typeof actionPayloadSchema>;

/** The event file's payload, checked where the Action reads it; a setup error naming the wrong field otherwise. */
export function readActionPayload(payload: unknown): ActionPayload {
  const parsed = actionPayloadSchema.safeParse(payload ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(payload)"}: ${i.message}`).join("; ");
  throw new ActionSetupError(`The event payload at GITHUB_EVENT_PATH is not a GitHub event (${problems}).`);
}

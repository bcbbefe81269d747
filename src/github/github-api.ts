import { jsonField } from "./json-field.js";

/** The HTTP status of an Octokit request error, or undefined for anything else (network errors, bugs). */
export function httpStatus(error: unknown): number | undefined {
  const status = jsonField(error, "status");
  return typeof status === "number" ? status : undefined;
}

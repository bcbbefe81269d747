import { jobKey } from "../../src/jobs/job.js";

describe("jobKey", () => {
  it("names a PR or issue as owner/repo#number", () => {
    expect(jobKey("acme", "web", 3)).toBe("acme/web#3");
    expect(jobKey("acme", "web", 3)).not.toBe(jobKey("acme", "web", 4));
  });
});

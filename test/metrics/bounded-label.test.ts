import { boundedLabel, learnedLabel, OTHER } from "../../src/metrics/bounded-label.js";

describe("metric labels stay bounded whatever arrives", () => {
  it("boundedLabel keeps only allowed values", () => {
    const allowed = new Set(["gpt-4o"]);
    expect(boundedLabel("gpt-4o", allowed)).toBe("gpt-4o");
    expect(boundedLabel("attacker-chosen-model-name", allowed)).toBe(OTHER);
  });

  it("learnedLabel learns values of the right shape up to its maximum, then answers other", () => {
    const label = learnedLabel(/^[0-9]{1,3}$/, 2);
    expect(label("1")).toBe("1");
    expect(label("not a number")).toBe(OTHER);
    expect(label("2")).toBe("2");
    expect(label("3")).toBe(OTHER); // a third distinct value is past the maximum
    expect(label("1")).toBe("1"); // values already learned keep their label
  });
});

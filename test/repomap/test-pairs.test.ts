import { isTestFile, pairKey, pairTests } from "../../src/repomap/test-pairs.js";

describe("test pairing", () => {
  test.each([
    ["test/jobs/queue.test.ts", true],
    ["src/jobs/queue.spec.ts", true],
    ["pkg/server_test.go", true],
    ["tests/test_inventory.py", true],
    ["src/main/java/FooTest.java", true],
    ["src/jobs/queue.ts", false],
    ["src/contest.ts", false],
  ])("isTestFile(%s) is %s", (p, expected) => {
    expect(isTestFile(p)).toBe(expected);
  });

  test("a test and its source share a key", () => {
    expect(pairKey("test/jobs/queue.test.ts")).toBe(pairKey("src/jobs/queue.ts"));
    expect(pairKey("tests/test_inventory.py")).toBe(pairKey("inventory.py"));
    expect(pairKey("pkg/server_test.go")).toBe(pairKey("pkg/server.go"));
  });

  test("pairs go both ways; lone tests and sources pair nothing", () => {
    const pairs = pairTests([
      "src/jobs/queue.ts",
      "test/jobs/queue.test.ts",
      "src/jobs/worker.ts",
      "test/e2e/flow.test.ts",
    ]);
    expect(pairs.get("src/jobs/queue.ts")).toEqual(["test/jobs/queue.test.ts"]);
    expect(pairs.get("test/jobs/queue.test.ts")).toEqual(["src/jobs/queue.ts"]);
    expect(pairs.has("src/jobs/worker.ts")).toBe(false);
    expect(pairs.has("test/e2e/flow.test.ts")).toBe(false);
  });
});

describe("pairTests on a changed file list", () => {
  test("answers for the list given, not the last one kept", () => {
    const a = ["src/a/b.ts", "test/a/b.test.ts"];
    const b = ["src/a/b.ts", "test/a/c.test.ts", "src/a/c.ts"];
    expect(pairTests(a).get("src/a/b.ts")).toEqual(["test/a/b.test.ts"]);
    expect(pairTests(b).get("src/a/b.ts")).toBeUndefined();
    expect(pairTests(b).get("src/a/c.ts")).toEqual(["test/a/c.test.ts"]);
    expect(pairTests(a).get("test/a/b.test.ts")).toEqual(["src/a/b.ts"]);
  });
});

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// Jest runs many test files in one worker process, and nock patches node's own http module, which every file of
// that worker shares: a file that turns the network off and never back on makes a later file's local servers
// unreachable (a real Azure identity fake then reads "Network unreachable"), depending only on the file order.
function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? testFiles(p) : /\.test\.ts$/.test(p) ? [p] : [];
  });
}

describe("test files leave the worker as they found it", () => {
  it("every file that calls nock.disableNetConnect() turns the network back on (enableNetConnect or useStrictNock)", () => {
    const leaking = testFiles(path.resolve("test")).filter((f) => {
      if (f.endsWith("test-hygiene.test.ts")) return false;
      const text = readFileSync(f, "utf8");
      return /\.disableNetConnect\(\)/.test(text) && !/\.enableNetConnect\(\)|useStrictNock\(/.test(text);
    });
    expect(leaking.map((f) => path.relative(process.cwd(), f))).toEqual([]);
  });
});

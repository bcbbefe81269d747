import fc from "fast-check";
import { formatNumber } from "../src/format-number.js";

describe("formatNumber", () => {
  it.each([
    [0, 0, "0"],
    [7, 0, "7"],
    [999, 0, "999"],
    [1000, 0, "1,000"],
    [1234567, 0, "1,234,567"],
    [-1234, 0, "-1,234"],
    [12.34, 1, "12.3"],
    [12.05, 1, "12.1"],
    [3, 1, "3"],
    [1234.5, 1, "1,234.5"],
    [0.04, 1, "0"],
    // A negative number that rounds to zero is plain 0 (Intl would print "-0").
    [-0.04, 1, "0"],
  ])("formatNumber(%p, %p) is %p", (n, digits, text) => {
    expect(formatNumber(n, digits)).toBe(text);
  });

  it("prints what toLocaleString('en-US') prints, for counts and for sizes with one decimal", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 48 }), (n) => formatNumber(n) === n.toLocaleString("en-US")));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (bytes) => {
        const mb = bytes / 1_000_000;
        return formatNumber(mb, 1) === mb.toLocaleString("en-US", { maximumFractionDigits: 1 });
      }),
    );
  });
});

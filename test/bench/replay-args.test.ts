import { parseReplayArgs } from "../../bench/replay/replay-args.js";
import { EDIT_FORMAT_NAMES } from "../../src/edits/types.js";

describe("the replay benchmark's command line", () => {
  it("takes --variant as a list, as --format and --cases are", () => {
    expect(parseReplayArgs(["--variant", "clean,noisy"]).variants).toEqual(["clean", "noisy"]);
    expect(parseReplayArgs(["--variant=noisy"]).variants).toEqual(["noisy"]);
    expect(parseReplayArgs(["--format", "diff,udiff", "--cases=a,b"])).toMatchObject({
      formats: ["diff", "udiff"],
      cases: ["a", "b"],
    });
  });

  it("defaults to every format and both variants, in bubblewrap", () => {
    expect(parseReplayArgs([])).toEqual({
      formats: [...EDIT_FORMAT_NAMES],
      cases: undefined,
      variants: ["clean", "noisy"],
      sandbox: "bubblewrap",
      repeat: 1,
      cold: false,
      modelLatencyMs: 0,
    });
    expect(parseReplayArgs(["--unsandboxed"]).sandbox).toBe("off");
  });

  it("takes the oracle's latency in whole milliseconds", () => {
    expect(parseReplayArgs(["--model-latency-ms", "3000"]).modelLatencyMs).toBe(3000);
    expect(parseReplayArgs(["--model-latency-ms=0"]).modelLatencyMs).toBe(0);
    expect(() => parseReplayArgs(["--model-latency-ms", "3s"])).toThrow(/--model-latency-ms: give a whole number/);
  });

  it("refuses an unknown variant or format before any run starts", () => {
    expect(() => parseReplayArgs(["--variant", "clean,noisey"])).toThrow(
      /--variant: "noisey" is not one of clean, noisy/,
    );
    expect(() => parseReplayArgs(["--format", "diff,unified"])).toThrow(/--format: "unified"/);
    expect(() => parseReplayArgs(["--variant", ","])).toThrow(/--variant: give one or more values/);
  });
});

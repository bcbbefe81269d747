import { createUsageMeter } from "../../src/llm/usage-meter.js";

const call = (prompt: number, completion: number, costUsd: number | null, usageEstimated = false) => ({ usage: { prompt, completion }, costUsd, usageEstimated });

describe("createUsageMeter", () => {
  it("sums tokens and known costs, counting unpriced calls apart", () => {
    const meter = createUsageMeter();
    meter.add(call(100, 20, null));
    expect(meter.totals().costUsd).toBeNull();
    meter.add(call(1000, 200, 0.01, true));
    meter.add(call(10, 2, 0.002));
    expect(meter.totals()).toEqual({ calls: 3, promptTokens: 1110, completionTokens: 222, costUsd: 0.012, unpricedCalls: 1, estimated: true });
    expect(meter.exceeded()).toBeNull();
  });

  it("reports the token budget once passed", () => {
    const meter = createUsageMeter({ maxTokens: 1000 });
    meter.add(call(800, 200, null));
    expect(meter.exceeded()).toBeNull();
    meter.add(call(1, 0, null));
    expect(meter.exceeded()).toMatchObject({ kind: "tokens", used: 1001, limit: 1000, message: expect.stringMatching(/1001 tokens.*1000/) });
  });

  it("reports the cost budget, but never for calls of unknown price", () => {
    const unknown = createUsageMeter({ maxUsd: 0.001 });
    unknown.add(call(1e6, 1e6, null));
    expect(unknown.exceeded()).toBeNull();
    const known = createUsageMeter({ maxUsd: 0.05 });
    known.add(call(1, 1, 0.04));
    expect(known.exceeded()).toBeNull();
    known.add(call(1, 1, 0.02));
    expect(known.exceeded()).toMatchObject({ kind: "cost", limit: 0.05, message: expect.stringMatching(/\$0\.0600.*\$0\.05/) });
  });
});

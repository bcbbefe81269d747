import { jest } from "@jest/globals";
import { createIntakeGate } from "../../src/app/intake-gate.js";

describe("createIntakeGate", () => {
  afterEach(() => jest.useRealTimers());

  it("lets jobs start at once when no delivery is being handled", async () => {
    const gate = createIntakeGate();
    let started = false;
    await gate.quiet().then(() => (started = true));
    expect(started).toBe(true);
  });

  it("holds jobs while deliveries are in flight and releases them once the last is answered (leaving twice counts once)", async () => {
    const gate = createIntakeGate(60_000);
    const a = gate.enter();
    const b = gate.enter();
    let started = false;
    const waiting = gate.quiet().then(() => (started = true));
    a();
    a();
    expect(gate.inFlight()).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(started).toBe(false);
    b();
    await waiting;
    expect(started).toBe(true);
    expect(gate.inFlight()).toBe(0);
  });

  it("never holds a job longer than the maximum wait, so a steady stream of deliveries cannot starve the jobs", async () => {
    jest.useFakeTimers();
    const gate = createIntakeGate(500);
    gate.enter();
    let started = false;
    void gate.quiet().then(() => (started = true));
    await jest.advanceTimersByTimeAsync(499);
    expect(started).toBe(false);
    await jest.advanceTimersByTimeAsync(2);
    expect(started).toBe(true);
  });
});

import { jest } from "@jest/globals";
import { createIntakeGate, waitForTriage } from "../../src/app/intake-gate.js";

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

describe("waitForTriage", () => {
  it("waits while triage jobs are queued and returns once none is", async () => {
    const counts = [3, 2, 0, 5];
    let asked = 0;
    await waitForTriage(async () => counts[asked++]!, { pollMs: 1 });
    expect(asked).toBe(3);
  });

  it("gives up waiting after the maximum wait, when stopped, or when the queue cannot be read", async () => {
    let asked = 0;
    await waitForTriage(async () => (asked++, 1), { pollMs: 1, maxWaitMs: 0 });
    expect(asked).toBe(0);
    const stopped = new AbortController();
    stopped.abort();
    await waitForTriage(async () => (asked++, 1), { pollMs: 1, signal: stopped.signal });
    expect(asked).toBe(0);
    await waitForTriage(async () => {
      asked++;
      throw new Error("queue down");
    });
    expect(asked).toBe(1);
  });
});

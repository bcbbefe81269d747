/** Small helpers shared by the library benchmarks (`npm run bench libs`). */

/** The median of some numbers (NaN for none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds of wall time since `start` (a `process.hrtime.bigint()` reading). */
export function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** CPU milliseconds (user + system) this process spent while `run` ran. */
export async function cpuMs(run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** `a / b` printed with two decimals and an ×. */
export function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

/** A number printed with a fixed number of decimals. */
export function fixed(n: number, digits = 2): string {
  return n.toFixed(digits);
}

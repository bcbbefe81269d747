/**
 * A number as people read it in comments and messages: thousands grouped with commas, at most `maxFractionDigits`
 * decimals, trailing zeros dropped — what `toLocaleString("en-US", { maximumFractionDigits })` prints, without
 * loading ICU's locale data (20–30 ms of CPU on the first call in each process, and every job is a new process).
 *
 * @example formatNumber(1234567) // "1,234,567"; formatNumber(12.34, 1) // "12.3"
 */
export function formatNumber(n: number, maxFractionDigits = 0): string {
  if (!Number.isFinite(n)) return String(n);
  const fixed = Math.abs(n).toFixed(maxFractionDigits);
  const [int = "", frac = ""] = fixed.split(".");
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const decimals = frac.replace(/0+$/, "");
  const sign = n < 0 && /[1-9]/.test(fixed) ? "-" : "";
  return `${sign}${grouped}${decimals ? `.${decimals}` : ""}`;
}

/**
 * Prompt tokens of one image as OpenAI counts them at `detail: "auto"`/`"high"` (its published formula): scaled to fit
 * 2048×2048, then its shorter side to 768, then 170 tokens per 512-pixel tile plus 85. Other providers count
 * differently, but of the same order; this is what the estimate and the status table use. Pure.
 * @example imageTokens(1024, 1024) === 765
 */
export function imageTokens(width: number, height: number): number {
  if (width <= 0 || height <= 0) return 85;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shorter = Math.min(1, 768 / Math.min(w, h));
  w *= shorter;
  h *= shorter;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

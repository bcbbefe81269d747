import { imageSize } from "image-size";

export type ImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/**
 * The image type by its first bytes (PNG, JPEG, GIF, WebP: what every vision endpoint takes), never by a file name
 * or a Content-Type header; null for anything else (HTML, SVG, a video, a zip). Pure.
 */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  const b = bytes;
  if (
    b.length >= 8 &&
    b[0] === 0x89 &&
    b[1] === 0x50 &&
    b[2] === 0x4e &&
    b[3] === 0x47 &&
    b[4] === 0x0d &&
    b[5] === 0x0a &&
    b[6] === 0x1a &&
    b[7] === 0x0a
  )
    return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 6 && String.fromCharCode(...b.subarray(0, 6)).match(/^GIF8[79]a$/)) return "image/gif";
  if (
    b.length >= 12 &&
    String.fromCharCode(...b.subarray(0, 4)) === "RIFF" &&
    String.fromCharCode(...b.subarray(8, 12)) === "WEBP"
  )
    return "image/webp";
  return null;
}

/** Type and size of an image, or why it is not one the model may get (pure; `image-size` reads the header). */
export function inspectImage(
  bytes: Uint8Array,
  maxPixels: number,
): { ok: true; type: ImageType; width: number; height: number } | { ok: false; reason: string } {
  const type = sniffImageType(bytes);
  if (!type) return { ok: false, reason: "not a PNG, JPEG, GIF or WebP image (checked by its content)" };
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch {
    return { ok: false, reason: `a damaged ${type.slice(6).toUpperCase()} image (its size cannot be read)` };
  }
  const width = size.width ?? 0;
  const height = size.height ?? 0;
  if (width <= 0 || height <= 0) return { ok: false, reason: "an image without a size" };
  if (width * height > maxPixels)
    return {
      ok: false,
      reason: `${width}×${height} pixels, over the limit of ${(maxPixels / 1e6).toFixed(0)} megapixels`,
    };
  return { ok: true, type, width, height };
}

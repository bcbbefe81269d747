import { inspectImage, sniffImageType } from "../../src/context/sniff-image.js";
import { makePng } from "../helpers/make-png.js";

const gif = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

describe("sniffImageType", () => {
  it.each([
    ["png", makePng(2, 2), "image/png"],
    ["gif", gif, "image/gif"],
    ["jpeg", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), "image/jpeg"],
    ["webp", Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WEBPVP8 ")]), "image/webp"],
    ["html", Buffer.from("<html>"), null],
    ["svg", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), null],
    ["empty", Buffer.alloc(0), null],
  ])("%s", (_name, bytes, type) => {
    expect(sniffImageType(bytes)).toBe(type);
  });
});

describe("inspectImage", () => {
  it("reads the size of a real image", () => {
    expect(inspectImage(makePng(40, 30), 1e6)).toEqual({ ok: true, type: "image/png", width: 40, height: 30 });
    expect(inspectImage(gif, 1e6)).toMatchObject({ ok: true, type: "image/gif", width: 1, height: 1 });
  });
  it("refuses too many pixels, a damaged header and non-images, saying why", () => {
    expect(inspectImage(makePng(100, 100), 5_000)).toEqual({
      ok: false,
      reason: expect.stringContaining("100×100 pixels, over the limit"),
    });
    expect(inspectImage(Buffer.from("<html>not an image</html>"), 1e6)).toEqual({
      ok: false,
      reason: expect.stringContaining("not a PNG, JPEG, GIF or WebP"),
    });
    expect(inspectImage(makePng(2, 2).subarray(0, 12), 1e6).ok).toBe(false);
  });
});

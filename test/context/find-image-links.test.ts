import { findImageLinks, isAllowedRedirect, judgeImageLink } from "../../src/context/find-image-links.js";

describe("findImageLinks", () => {
  it("finds markdown images, <img src>, and bare attachment links, in order, each once", () => {
    const text = [
      'See ![shot](https://github.com/user-attachments/assets/aaa-1 "title")',
      '<img width="300" alt="x" src="https://github.com/user-attachments/assets/bbb-2">',
      "https://github.com/user-attachments/assets/ccc-3",
      "![again](https://github.com/user-attachments/assets/aaa-1)",
      "![old](https://user-images.githubusercontent.com/1/2.png)",
      "a link, not an image: [docs](https://example.com/a.png)",
      "![q](https://github.com/user-attachments/assets/ddd-4?raw=1)",
    ].join("\n");
    expect(findImageLinks(text)).toEqual([
      "https://github.com/user-attachments/assets/aaa-1",
      "https://github.com/user-attachments/assets/bbb-2",
      "https://github.com/user-attachments/assets/ccc-3",
      "https://user-images.githubusercontent.com/1/2.png",
      "https://github.com/user-attachments/assets/ddd-4?raw=1",
    ]);
  });

  it("skips what GitHub does not show as an image: code blocks, code spans, HTML comments", () => {
    const text = [
      "```",
      "![a](https://github.com/user-attachments/assets/in-fence)",
      "```",
      "`![b](https://github.com/user-attachments/assets/in-span)`",
      "<!-- ![c](https://github.com/user-attachments/assets/in-comment) -->",
      "![d](https://github.com/user-attachments/assets/shown)",
    ].join("\n");
    expect(findImageLinks(text)).toEqual(["https://github.com/user-attachments/assets/shown"]);
  });
});

describe("judgeImageLink", () => {
  const gh = "https://github.com";
  it.each([
    ["https://github.com/user-attachments/assets/1f0c-ab", gh, true, true],
    ["https://github.com/acme/widgets/assets/12/abc.png", gh, true, true],
    ["https://private-user-images.githubusercontent.com/1/x.png?jwt=abc", gh, true, false],
    ["https://user-images.githubusercontent.com/1/x.png", gh, true, false],
    ["https://camo.githubusercontent.com/abc", gh, false, false],
    ["https://github.com/acme/widgets/blob/main/x.png", gh, false, false],
    ["https://example.com/user-attachments/assets/1", gh, false, false],
    ["http://github.com/user-attachments/assets/1", gh, false, false],
    ["https://user:pw@github.com/user-attachments/assets/1", gh, false, false],
    ["not a url", gh, false, false],
    // GitHub Enterprise (or the fake): the configured host only, its own port included.
    ["http://127.0.0.1:8080/user-attachments/assets/a1", "http://127.0.0.1:8080", true, true],
    ["http://127.0.0.1:9090/user-attachments/assets/a1", "http://127.0.0.1:8080", false, false],
    ["https://user-images.githubusercontent.com/1/x.png", "https://ghe.example.com", false, false],
  ])("%s on %s → allowed %s, token %s", (link, web, allowed, token) => {
    const v = judgeImageLink(link, web);
    expect(v.ok).toBe(allowed);
    if (v.ok) expect(v.sendToken).toBe(token);
    else expect(v.reason).toBeTruthy();
  });
});

describe("isAllowedRedirect", () => {
  const from = new URL("https://github.com/user-attachments/assets/a");
  it.each([
    ["https://private-user-images.githubusercontent.com/1/a.png?jwt=x", true],
    ["https://github.com/other/path", true],
    ["https://evil.example/a.png", false],
    ["http://private-user-images.githubusercontent.com/a.png", false],
    ["https://private-user-images.githubusercontent.com:8443/a.png", false],
  ])("%s → %s", (to, ok) => {
    expect(isAllowedRedirect(new URL(to), from)).toBe(ok);
  });
});

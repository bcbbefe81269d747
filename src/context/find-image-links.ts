/**
 * Image references in GitHub text: markdown images, HTML `<img src>`, and bare attachment links (GitHub
 * writes an uploaded screenshot as `<img … src="https://github.com/user-attachments/assets/…">` or as a bare link).
 * Only what GitHub shows counts: code spans, fenced blocks and HTML comments are skipped. Pure.
 */
const HIDDEN =
  /(^|\n) {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n {0,3}\2[`~]*[ \t]*(?=\n|$)|$)|<!--[\s\S]*?(?:-->|$)|(`+)(?!`)[^`]+?\3(?!`)/g;
const MD_IMAGE = /!\[(?:[^\]\\]|\\.)*\]\(\s*<?([^\s<>()]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const HTML_IMG = /<img\b[^>]*?\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi;
const BARE_ATTACHMENT = /https?:\/\/[^\s<>()"'`\]]+\/(?:user-attachments\/assets|[\w.-]+\/[\w.-]+\/assets)\/[\w./-]+/g;

/** Distinct image URLs in the order they appear. */
export function findImageLinks(text: string): string[] {
  const visible = text.replace(/\r\n?/g, "\n").replace(HIDDEN, (_m, lead: string | undefined) => lead ?? "");
  const found: { at: number; url: string }[] = [];
  for (const m of visible.matchAll(MD_IMAGE)) found.push({ at: m.index, url: m[1]! });
  for (const m of visible.matchAll(HTML_IMG))
    found.push({ at: m.index, url: (m[1] ?? m[2] ?? m[3] ?? "").replace(/&amp;/g, "&") });
  // Bare links only outside the images already found (a markdown image's address is not a second image).
  const rest = visible.replace(MD_IMAGE, (m) => " ".repeat(m.length)).replace(HTML_IMG, (m) => " ".repeat(m.length));
  for (const m of rest.matchAll(BARE_ATTACHMENT)) found.push({ at: m.index, url: m[0] });
  found.sort((a, b) => a.at - b.at);
  return [...new Set(found.map((f) => f.url.trim()).filter(Boolean))];
}

/** GitHub's hosts for user images, besides the web host's own attachment paths (github.com only). */
const GITHUB_IMAGE_HOSTS = new Set(["user-images.githubusercontent.com", "private-user-images.githubusercontent.com"]);
const ATTACHMENT_PATH = /^\/(?:user-attachments\/assets\/[\w-]+|[\w.-]+\/[\w.-]+\/assets\/[\w./-]+)$/;

export type ImageLinkVerdict = { ok: true; url: URL; sendToken: boolean } | { ok: false; reason: string };

/**
 * Whether an image link may be downloaded: an attachment path on the configured GitHub web host (github.com, a
 * GitHub Enterprise host), or GitHub's user-image hosts when that host is github.com. Nothing else is ever fetched
 * (`camo.githubusercontent.com` proxies any address, so it is not one of them). The token goes only to the web host.
 * @example judgeImageLink("https://github.com/user-attachments/assets/1f0c…", "https://github.com").ok === true
 */
export function judgeImageLink(link: string, webOrigin: string): ImageLinkVerdict {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return { ok: false, reason: "not an absolute address" };
  }
  const web = new URL(webOrigin);
  if (url.username || url.password) return { ok: false, reason: "an address with credentials" };
  if (url.origin === web.origin && ATTACHMENT_PATH.test(url.pathname)) return { ok: true, url, sendToken: true };
  if (web.hostname === "github.com" && url.protocol === "https:" && GITHUB_IMAGE_HOSTS.has(url.hostname) && !url.port)
    return { ok: true, url, sendToken: false };
  return { ok: false, reason: `${url.host || "that address"} is not a GitHub attachment` };
}

/**
 * Where a download may be redirected: the same origin, or GitHub's storage hosts for user content (an attachment
 * answers with a redirect to `private-user-images.githubusercontent.com`, a signed address). Pure.
 */
export function isAllowedRedirect(to: URL, from: URL): boolean {
  if (to.origin === from.origin) return true;
  return (
    to.protocol === "https:" &&
    !to.port &&
    !to.username &&
    (GITHUB_IMAGE_HOSTS.has(to.hostname) || to.hostname === "objects.githubusercontent.com")
  );
}

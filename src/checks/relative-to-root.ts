/**
 * A tool-printed path as a repository-relative path, or null when it points outside the repository: absolute paths
 * under `root` (or `file://` URLs of them) are made relative; other absolute paths, `..` escapes and URLs are dropped (a stack frame in
 * node_modules' parent or the Python stdlib is not something the model can edit).
 */
export function relativeToRoot(printed: string, root: string): string | null {
  let p = printed.trim().replace(/\\/g, "/");
  // A file URL (Node's ESM stack frames print them) is a path like any other; other URLs are dropped.
  if (p.startsWith("file://")) p = decodedPath(p.slice("file://".length));
  else if (p === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(p)) return null;
  const r = root.replace(/\\/g, "/").replace(/\/+$/, "");
  if (p.startsWith(`${r}/`)) p = p.slice(r.length + 1);
  else if (p.startsWith("/") || /^[A-Za-z]:\//.test(p)) return null;
  const parts: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") return null;
    parts.push(part);
  }
  return parts.length ? parts.join("/") : null;
}

/** A URL's path with its escapes decoded; a malformed escape leaves it as printed. */
function decodedPath(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

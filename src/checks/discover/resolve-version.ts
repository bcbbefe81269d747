import semver from "semver";

/**
 * Known releases of each toolchain, newest last, with the day a Node line became LTS (the image for `lts/*` or for an
 * open range is the newest LTS line that day). Only versions whose official images exist are listed; the operator
 * maps others through `AIDER_BOT_TOOLCHAIN_IMAGES`. Update with each release.
 */
const NODE: { major: string; lts?: string; codename?: string }[] = [
  { major: "0.10" },
  { major: "0.12" },
  { major: "4", lts: "2015-10-12", codename: "argon" },
  { major: "5" },
  { major: "6", lts: "2016-10-18", codename: "boron" },
  { major: "7" },
  { major: "8", lts: "2017-10-31", codename: "carbon" },
  { major: "9" },
  { major: "10", lts: "2018-10-30", codename: "dubnium" },
  { major: "11" },
  { major: "12", lts: "2019-10-21", codename: "erbium" },
  { major: "13" },
  { major: "14", lts: "2020-10-27", codename: "fermium" },
  { major: "15" },
  { major: "16", lts: "2021-10-26", codename: "gallium" },
  { major: "17" },
  { major: "18", lts: "2022-10-25", codename: "hydrogen" },
  { major: "19" },
  { major: "20", lts: "2023-10-24", codename: "iron" },
  { major: "21" },
  { major: "22", lts: "2024-10-29", codename: "jod" },
  { major: "23" },
  { major: "24", lts: "2025-10-28", codename: "krypton" },
  { major: "25" },
  { major: "26", lts: "2026-10-28" },
];
const PYTHON_MINORS = [6, 7, 8, 9, 10, 11, 12, 13, 14].map((m) => `3.${m}`);
const GO_MINORS = Array.from({ length: 26 - 11 + 1 }, (_, i) => `1.${11 + i}`);
const RUBY = ["2.7", "3.0", "3.1", "3.2", "3.3", "3.4", "4.0"];

/**
 * The version of `tool` to run for what a repository asks (`engines.node`, `.nvmrc`, `python-version`,
 * `requires-python`, `go.mod`'s `go` line, a setup action's input): an exact version stays as written; an open
 * range or alias becomes the NEWEST known version that satisfies it — the newest LTS line for Node — because a
 * range's lowest version is usually one nobody runs any more (`"node": ">= 0.11.16"` is Node 24 today, not 0.11).
 * `go.mod`'s `go` line is a minimum (`minimum: true`). Unknown tools and what cannot be read stay as written.
 */
export function resolveVersion(tool: string, spec: string, opts: { minimum?: boolean; now?: Date } = {}): string {
  const raw = spec.trim().replace(/^v(?=\d)/, "");
  if (!raw) return raw;
  const now = opts.now ?? new Date();
  switch (tool) {
    case "node":
      return resolveNode(raw, now) ?? raw;
    case "python":
      return resolvePython(raw) ?? raw;
    case "go":
      return resolveGo(raw, opts.minimum === true) ?? raw;
    case "ruby":
      return resolveFromList(RUBY, raw, /^(?:ruby|latest|stable)$/i) ?? raw;
    default:
      return raw;
  }
}

function resolveNode(spec: string, now: Date): string | null {
  const lts = NODE.filter((n) => n.lts && new Date(n.lts) <= now);
  const newestLts = lts.at(-1)?.major;
  const lower = spec.toLowerCase();
  if (/^lts\/\*$|^lts$|^--lts$/.test(lower)) return newestLts ?? null;
  const named = /^lts\/([a-z]+)$/.exec(lower);
  if (named) {
    const line = NODE.find((n) => n.codename === named[1]);
    return line ? line.major : null;
  }
  if (/^(?:node|latest|current|stable|\*|x)$/.test(lower)) return NODE.at(-1)!.major;
  // A full version (`20.11.1`) is a pin: kept.
  if (semver.valid(spec, { loose: true })) return spec;
  const majors = (list: typeof NODE) =>
    list.filter((n) => {
      try {
        return semver.intersects(spec, `${n.major}.x`, { loose: true });
      } catch {
        return false;
      }
    });
  const fitting = majors(NODE);
  if (!fitting.length) return null;
  const fittingLts = fitting.filter((n) => lts.includes(n));
  return (fittingLts.length ? fittingLts : fitting).at(-1)!.major;
}

/** `3.12`, `3.12.4`, `3.x`, `>=3.9`, `>=3.9,<3.13`, `~=3.10`, `3.14t` (free-threaded: the same image line). */
function resolvePython(spec: string): string | null {
  const s = spec.replace(/^(?:cpython|python)-?/i, "");
  if (/^3\.\d+t$/.test(s)) return s.slice(0, -1);
  if (/^\d+\.\d+(?:\.\d+)?$/.test(s)) return s;
  if (/^(?:3|3\.x|3\.\*|\*|x|latest|stable)$/i.test(s)) return PYTHON_MINORS.at(-1)!;
  if (/^pypy|dev$|-dev\b|^graalpy/i.test(s)) return null;
  const range = pep440ToSemver(s);
  if (range === null) return null;
  const fitting = PYTHON_MINORS.filter((m) => {
    if (range.not.some((n) => n === m)) return false;
    try {
      return semver.intersects(range.range, `${m}.x`, { loose: true });
    } catch {
      return false;
    }
  });
  return fitting.at(-1) ?? null;
}

/** A PEP 440 specifier set (`>=3.9,<3.13`, `~=3.10`, `==3.11.*`, `!=3.9.*`) as a semver range and excluded minors. */
function pep440ToSemver(spec: string): { range: string; not: string[] } | null {
  const parts: string[] = [];
  const not: string[] = [];
  for (const clause of spec.split(",").map((c) => c.trim())) {
    if (!clause) continue;
    const m = /^(~=|===?|!=|>=|<=|>|<)?\s*(\d+(?:\.\d+)*)(\.\*)?$/.exec(clause);
    if (!m) return null;
    const [, op = "==", version = "", star] = m;
    const nums = version.split(".").map(Number);
    const full = [...nums, 0, 0].slice(0, 3).join(".");
    if (op === "!=") {
      if (star || nums.length === 2) not.push(nums.slice(0, 2).join("."));
      continue;
    }
    if (op === "~=") {
      if (nums.length < 2) return null;
      const upper = nums.slice(0, -1);
      upper[upper.length - 1]! += 1;
      parts.push(`>=${full} <${[...upper, 0, 0].slice(0, 3).join(".")}`);
    } else if (op === "==" || op === "===") parts.push(star || nums.length < 3 ? `${nums.join(".")}.x` : full);
    else parts.push(`${op}${full}`);
  }
  return parts.length ? { range: parts.join(" "), not } : null;
}

/** `1.22`, `1.22.3`, `^1.22`, `>=1.21`, `stable`, `oldstable`, `1.20.x`; a go.mod line is a minimum. */
function resolveGo(spec: string, minimum: boolean): string | null {
  const s = spec.replace(/^go/, "");
  if (/^(?:stable|latest)$/i.test(s)) return GO_MINORS.at(-1)!;
  if (/^oldstable$/i.test(s)) return GO_MINORS.at(-2)!;
  if (minimum && /^1\.\d+(?:\.\d+)?$/.test(s)) {
    const [, minor = ""] = /^1\.(\d+)/.exec(s)!;
    const newer = GO_MINORS.filter((m) => Number(m.split(".")[1]) >= Number(minor));
    return newer.at(-1) ?? s;
  }
  if (/^\d+\.\d+(?:\.\d+)?$/.test(s)) return s;
  return resolveFromList(GO_MINORS, s, /^$/);
}

/** The newest of `known` (`major.minor` lines) that a semver range satisfies; `latest` per `alias`. */
function resolveFromList(known: string[], spec: string, alias: RegExp): string | null {
  if (alias.test(spec)) return known.at(-1)!;
  if (/^\d+\.\d+(?:\.\d+)?$/.test(spec)) return spec;
  const fitting = known.filter((m) => {
    try {
      return semver.intersects(spec, `${m}.x`, { loose: true });
    } catch {
      return false;
    }
  });
  return fitting.at(-1) ?? null;
}

/**
 * Short-lived sharing of triage's two reads: a repository's `.github/aider.yml` and a user's permission on it.
 * Triage of events that arrive together (a storm, a burst of comments on one repository) asks GitHub for the same
 * two answers each time; in the storm bench those two reads were half of every triage's requests. One read now
 * serves every triage of the same key within `ttlMs` (and every triage waiting on it while it is in flight).
 *
 * The cost, said plainly: a change to the config file or to a collaborator's permission reaches triage at most
 * `ttlMs` later (10 s by default, `AIDER_BOT_TRIAGE_CACHE_MS`; 0 turns sharing off), except that a push to a
 * repository's default branch drops its config at once (see app/config-push.ts). A failed read is never kept.
 */
export interface LookupCache {
  /** The answer for `key`: shared when one was read (or is being read) within the TTL, else `load()`ed. */
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** Drops every entry whose key `matches`: the next triage reads it again. */
  forget(matches: (key: string) => boolean): void;
}

export interface LookupCacheOptions {
  ttlMs: number;
  /** Entries kept at most; the oldest go first (default 1,000). */
  maxEntries?: number;
  now?: () => number;
}

export function createLookupCache(options: LookupCacheOptions): LookupCache {
  const { ttlMs, maxEntries = 1_000, now = Date.now } = options;
  const entries = new Map<string, { at: number; value: Promise<unknown> }>();
  return {
    get<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (ttlMs <= 0) return load();
      const hit = entries.get(key);
      if (hit && now() - hit.at < ttlMs) return hit.value as Promise<T>;
      entries.delete(key);
      const value = load();
      const entry = { at: now(), value };
      entries.set(key, entry);
      // A failure is answered to the triages that shared it, and forgotten: the next one reads again.
      value.catch(() => entries.get(key) === entry && entries.delete(key));
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      return value;
    },
    forget(matches) {
      for (const key of [...entries.keys()]) if (matches(key)) entries.delete(key);
    },
  };
}

import type { PushEvent } from "../../src/edge/bot-event.js";
import { configKeysStaleAfterPush } from "../../src/app/config-push.js";
import { createLookupCache } from "../../src/triage/lookup-cache.js";

describe("createLookupCache", () => {
  const clock = () => {
    let t = 1_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  test("one read serves every caller within the TTL, in flight or done", async () => {
    const c = clock();
    const cache = createLookupCache({ ttlMs: 10_000, now: c.now });
    let reads = 0;
    const load = async () => ++reads;
    const [a, b] = await Promise.all([cache.get("acme/widgets", load), cache.get("acme/widgets", load)]);
    c.advance(9_999);
    expect([a, b, await cache.get("acme/widgets", load), reads]).toEqual([1, 1, 1, 1]);
  });

  test("reads again once the TTL is over, and keys are separate", async () => {
    const c = clock();
    const cache = createLookupCache({ ttlMs: 10_000, now: c.now });
    let reads = 0;
    const load = async () => ++reads;
    await cache.get("acme/widgets", load);
    expect(await cache.get("acme/other", load)).toBe(2);
    c.advance(10_000);
    expect(await cache.get("acme/widgets", load)).toBe(3);
  });

  test("a failed read reaches the callers that shared it and is not kept", async () => {
    const cache = createLookupCache({ ttlMs: 10_000 });
    let calls = 0;
    const failing = () => (++calls === 1 ? Promise.reject(new Error("GitHub answered 502")) : Promise.resolve("ok"));
    const shared = [cache.get("k", failing), cache.get("k", failing)];
    await expect(Promise.all(shared)).rejects.toThrow("502");
    expect(await cache.get("k", failing)).toBe("ok");
    expect(calls).toBe(2);
  });

  test("ttlMs 0 turns sharing off", async () => {
    const cache = createLookupCache({ ttlMs: 0 });
    let reads = 0;
    const load = async () => ++reads;
    await Promise.all([cache.get("k", load), cache.get("k", load)]);
    expect(reads).toBe(2);
  });

  test("keeps at most maxEntries, dropping the oldest", async () => {
    const cache = createLookupCache({ ttlMs: 10_000, maxEntries: 2 });
    let reads = 0;
    const load = async () => ++reads;
    await cache.get("a", load);
    await cache.get("b", load);
    await cache.get("c", load);
    expect(await cache.get("b", load)).toBe(2);
    expect(await cache.get("a", load)).toBe(4);
  });
});

describe("configKeysStaleAfterPush with the lookup cache", () => {
  const push = (ref: string, fullName: string): PushEvent => {
    const [owner = "", name = ""] = fullName.split("/");
    const repository = { id: 1, owner, name, fullName, cloneUrl: "", webUrl: "", defaultBranch: "main" };
    return { kind: "push", delivery: "d", ref, repository };
  };

  it("a push to the default branch drops that repository's config, and only its", async () => {
    const cache = createLookupCache({ ttlMs: 60_000 });
    let reads = 0;
    const read = () => Promise.resolve(++reads);
    await cache.get("config:acme/web", read);
    await cache.get("config:acme/api", read);
    await cache.get("permission:acme/web:ann", read);
    cache.forget(configKeysStaleAfterPush(push("refs/heads/main", "Acme/Web"))!);
    expect(await cache.get("config:acme/web", read)).toBe(4);
    expect(await cache.get("config:acme/api", read)).toBe(2);
    expect(await cache.get("permission:acme/web:ann", read)).toBe(3);
  });

  it("a push to another branch drops nothing; one to the account's .github drops every config of the account", () => {
    expect(configKeysStaleAfterPush(push("refs/heads/feature", "acme/web"))).toBeNull();
    const stale = configKeysStaleAfterPush(push("refs/heads/main", "acme/.github"))!;
    expect(["config:acme/web", "config:acme/api", "config:other/web", "permission:acme/web:ann"].filter(stale)).toEqual(
      ["config:acme/web", "config:acme/api"],
    );
  });
});

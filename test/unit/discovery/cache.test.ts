/**
 * The card cache's reading of RFC 9111, rule by rule, with a fixed clock.
 * (resolve.test.ts covers the same rules end to end, over HTTP.)
 */
import { describe, expect, it } from "vitest";
import { fresh, revalidated, revalidationHeaders, storable, storedCard, type StoredCard } from "../../../src/discovery/cache.js";
import { resolveAgentCard, MemoryCardStore } from "../../../src/index.js";
import { cardJson } from "../../support/cards.js";
import { sendJson, startFakeServer } from "../../support/fake-server.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const NONE = new Headers();

function entry(headers: Record<string, string>, receivedAt = T0): StoredCard {
  return storedCard(new Headers(headers), "{}", "https://a.example/c.json", receivedAt);
}

/** How long the entry stays fresh, to the second, probing at one-second steps. */
function freshFor(e: StoredCard, request = NONE, limit = 200_000): number {
  let s = 0;
  while (s < limit && fresh(e, request, e.receivedAt + s * 1000)) s++;
  return s;
}

describe("freshness", () => {
  it("max-age, counted from when the response arrived", () => {
    expect(freshFor(entry({ "Cache-Control": "max-age=60" }))).toBe(60);
  });

  it("max-age wins over Expires; s-maxage is for shared caches and is not read", () => {
    const e = entry({
      "Cache-Control": "s-maxage=600, max-age=30",
      Date: new Date(T0).toUTCString(),
      Expires: new Date(T0 + 3_600_000).toUTCString(),
    });
    expect(freshFor(e)).toBe(30);
    expect(freshFor(entry({ "Cache-Control": "s-maxage=600" }))).toBe(0);
  });

  it("Expires, relative to the response's Date (so a skewed server clock does not matter)", () => {
    const serverNow = T0 - 5_000_000;
    const e = entry({ Date: new Date(serverNow).toUTCString(), Expires: new Date(serverNow + 120_000).toUTCString() });
    expect(freshFor(e)).toBe(120);
    expect(freshFor(entry({ Expires: "0" }))).toBe(0);
  });

  it("without either, a tenth of the time since Last-Modified, at most a day", () => {
    const date = new Date(T0).toUTCString();
    expect(freshFor(entry({ Date: date, "Last-Modified": new Date(T0 - 1_000_000).toUTCString() }))).toBe(100);
    const old = entry({ Date: date, "Last-Modified": new Date(T0 - 1000 * 86_400_000).toUTCString() });
    expect(fresh(old, NONE, T0 + 86_399_000)).toBe(true);
    expect(fresh(old, NONE, T0 + 86_400_000)).toBe(false);
    expect(freshFor(entry({}))).toBe(0);
  });

  it("no-cache (or HTTP/1.0's Pragma) means revalidate every time; Age counts as time already spent", () => {
    expect(freshFor(entry({ "Cache-Control": "no-cache, max-age=60" }))).toBe(0);
    expect(freshFor(entry({ Pragma: "no-cache" }))).toBe(0);
    expect(freshFor(entry({ "Cache-Control": "max-age=60", Age: "45" }))).toBe(15);
    expect(freshFor(entry({ "Cache-Control": "max-age=bogus" }))).toBe(0);
  });

  it("a request's no-cache or max-age asks for a newer answer than the entry", () => {
    const e = entry({ "Cache-Control": "max-age=60" });
    expect(fresh(e, new Headers({ "Cache-Control": "no-cache" }), T0)).toBe(false);
    expect(fresh(e, new Headers({ Pragma: "no-cache" }), T0)).toBe(false);
    expect(freshFor(e, new Headers({ "Cache-Control": "max-age=10" }))).toBe(11);
  });
});

describe("storing and revalidating", () => {
  it("no-store on either side, and Vary: *, are not stored; private is (a client's own cache)", () => {
    expect(storable(NONE, entry({ "Cache-Control": "no-store" }))).toBe(false);
    expect(storable(new Headers({ "Cache-Control": "no-store" }), entry({}))).toBe(false);
    expect(storable(NONE, entry({ Vary: "*" }))).toBe(false);
    expect(
      storable(new Headers({ Authorization: "Bearer x" }), entry({ "Cache-Control": "private, max-age=60", Vary: "Authorization" })),
    ).toBe(true);
  });

  it("asks with the entry's validators", () => {
    expect(revalidationHeaders(entry({ ETag: '"v1"', "Last-Modified": "Tue, 01 Jan 2026 00:00:00 GMT" }))).toEqual({
      "If-None-Match": '"v1"',
      "If-Modified-Since": "Tue, 01 Jan 2026 00:00:00 GMT",
    });
    expect(revalidationHeaders(entry({}))).toEqual({});
  });

  it("a 304 updates the stored headers and restarts the clock, keeping the body", () => {
    const e = entry({ ETag: '"v1"', "Cache-Control": "max-age=10", "Last-Modified": "Mon, 01 Dec 2025 00:00:00 GMT" });
    const later = T0 + 60_000;
    const r = revalidated(e, new Headers({ ETag: '"v1"', "Cache-Control": "max-age=30" }), later);
    expect(r.body).toBe(e.body);
    expect(r.receivedAt).toBe(later);
    expect(r.headers).toMatchObject({ etag: '"v1"', "cache-control": "max-age=30", "last-modified": "Mon, 01 Dec 2025 00:00:00 GMT" });
    expect(freshFor(r)).toBe(30);
  });

  it("the memory store keeps at most 16 Mi characters of cards: 40 cards near the 1 MiB limit do not all stay", () => {
    const store = new MemoryCardStore();
    const big = (i: number) => storedCard(new Headers(), `{"pad":"${String(i).repeat(1_000_000)}"}`, `https://a${i}.example/c.json`, T0);
    for (let i = 0; i < 40; i++) store.set(`k${i}`, big(i % 10));
    const kept = Array.from({ length: 40 }, (_, i) => store.get(`k${i}`) !== undefined);
    // The most recent 16 (16 x 1,000,010 characters is within 16 Mi), the older ones dropped.
    expect(kept.lastIndexOf(false)).toBe(40 - 16 - 1);
    expect(kept.filter(Boolean)).toHaveLength(16);
    // Replacing an entry does not count it twice; small cards are kept by the hundred.
    const small = new MemoryCardStore();
    for (let i = 0; i < 300; i++) small.set(`k${i % 200}`, entry({}));
    expect(Array.from({ length: 200 }, (_, i) => small.get(`k${i}`)).filter(Boolean)).toHaveLength(200);
  });

  it("entries of another shape in a store (an older version's) are misses, not failures", async () => {
    const s = await startFakeServer((_req, res) => sendJson(res, 200, cardJson(), { "Cache-Control": "max-age=60" }));
    try {
      const store = new MemoryCardStore();
      const url = `${s.url}/c.json`;
      await resolveAgentCard(url, { cache: store, verify: "off" });
      const key = [...(store as unknown as { entries: Map<string, unknown> }).entries.keys()][0]!;
      store.set(key, { policy: {}, body: "{}", url } as unknown as StoredCard);
      const again = await resolveAgentCard(url, { cache: store, verify: "off" });
      expect(again.cache).toBe("miss");
      expect(s.requests).toHaveLength(2);
    } finally {
      await s.close();
    }
  });
});

/**
 * Pagination (client/paginate.ts): a listing whose agent never stops paging
 * ends by the caller's signal, also while a page hangs, and a reader that
 * returns while a page is on its way ends the listing and the page's
 * request at once.
 */
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { describe, expect, it } from "vitest";
import { A2AClient, AbortedError, createRestTransport, listAllTasks, listTasksPages } from "../../../src/node.js";
import { within } from "../../support/fake-server.js";
import { BOUND_MS, raw, useRawServer, clientOf, settle, noSocketLeft, withoutTimersLeft, single } from "../../support/deadline-server.js";

useRawServer();

describe("what a call awaits before its request: token fetches, pages", () => {
  it("a listing whose agent never stops paging ends by the caller's signal, also while a page hangs", async () => {
    let pages = 0;
    // New page tokens forever; from the fourth page on, no answer and no regard for the signal.
    const httpClient: UniversalClientFn = async () => {
      if (++pages > 3) return new Promise(() => {});
      const body = new TextEncoder().encode(JSON.stringify({ tasks: [], nextPageToken: `p${pages}` }));
      return { status: 200, header: new Headers({ "Content-Type": "application/json" }), body: single(body), trailer: new Headers() };
    };
    const client = new A2AClient(createRestTransport({ baseUrl: "http://127.0.0.1:9", httpClient }));
    const controller = new AbortController();
    const listing = (async () => {
      for await (const _ of listAllTasks(client, {}, { signal: controller.signal, timeoutMs: 0 })) {
        // No tasks: only pages.
      }
    })();
    await expect.poll(() => pages).toBe(4);
    controller.abort();
    const { error, ms } = await settle(listing);
    expect(error).toBeInstanceOf(AbortedError);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it.each(["listAllTasks", "listTasksPages"] as const)(
    "%s: a reader that returns while a page is on its way ends the listing at once, and the page's request",
    async (name) => {
      raw.behaviour = "silent";
      await withoutTimersLeft(async () => {
        const before = raw.requests;
        const client = clientOf("HTTP+JSON", "node:http");
        const listing: AsyncGenerator<unknown, void, undefined> = name === "listAllTasks" ? listAllTasks(client) : listTasksPages(client);
        const pending = listing.next();
        await expect.poll(() => raw.requests, { timeout: 1000, interval: 5 }).toBe(before + 1);
        await within(listing.return(), 500, "the reader's return");
        expect(await within(pending, 500, "the read left pending")).toEqual({ done: true, value: undefined });
        await noSocketLeft();
        expect(raw.requests).toBe(before + 1);
      });
    },
  );
});

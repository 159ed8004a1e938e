/**
 * The toolkit's `toA2AError` masks what a URL carries (user info, query
 * values) wherever the error it makes, or a cause it keeps, names one: as a
 * failed call's error is masked of what its request carried.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { A2AError, ConnectionError } from "../../../src/index.js";
import { toA2AError } from "../../../src/toolkit.js";

const URL_WITH_SECRETS = "https://alice:s3cret@agent.example/a2a?key=abc";
const SECRETS = ["alice", "s3cret", "abc"];

/** Every text an error shows: message, String, JSON, inspection, and each cause's, all the way down. */
function shown(e: unknown): string {
  const texts: string[] = [inspect(e, { depth: Infinity, showHidden: true })];
  for (let c: unknown = e, depth = 0; c !== undefined && depth < 10; c = (c as { cause?: unknown }).cause, depth++) {
    texts.push(String(c), JSON.stringify(c) ?? "");
    if (c instanceof Error) texts.push(c.message, c.stack ?? "");
  }
  return texts.join("\n");
}

function expectClean(e: A2AError): void {
  expect(e).toBeInstanceOf(A2AError);
  const text = shown(e);
  for (const secret of SECRETS) expect(text).not.toContain(secret);
  // The host and path stay readable.
  expect(text).toContain("agent.example/a2a");
}

describe("toA2AError (toolkit) masks the user info and query of a URL it names", () => {
  it("fetch's refusal of a URL with credentials, which quotes it whole", async () => {
    const refused = await fetch(URL_WITH_SECRETS).catch((x: unknown) => x);
    expect(String((refused as Error).message)).toContain("s3cret");
    const e = toA2AError(refused, "JSONRPC");
    expect(e).toBeInstanceOf(ConnectionError);
    expectClean(e);
  });

  it("a TypeError: fetch failed whose cause names the URL", () => {
    const failed = new TypeError("fetch failed", { cause: new Error(`getaddrinfo failed for ${URL_WITH_SECRETS}`) });
    expectClean(toA2AError(failed, "HTTP+JSON"));
  });

  it("the URL given as the argument, and a cause that names it", () => {
    const cause = Object.assign(new Error(`connect ECONNREFUSED (${URL_WITH_SECRETS})`), { code: "ECONNREFUSED" });
    const e = toA2AError(new TypeError("fetch failed", { cause }), "JSONRPC", URL_WITH_SECRETS);
    expect(e).toBeInstanceOf(ConnectionError);
    expectClean(e);
  });

  it("any other error, a ConnectError, and an A2AError passed through", () => {
    expectClean(toA2AError(new Error(`could not call ${URL_WITH_SECRETS}`)));
    expectClean(toA2AError(new ConnectError(`upstream ${URL_WITH_SECRETS} failed`, Code.Internal), "GRPC"));
    expectClean(toA2AError(new A2AError(`refused at ${URL_WITH_SECRETS}`)));
  });
});

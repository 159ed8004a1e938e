import { expect } from "vitest";
import { A2AError } from "../../src/index.js";
import { within } from "./fake-server.js";

/** The error `p` rejects with; the test fails unless it rejects, with an A2AError. */
export async function failure(p: Promise<unknown>): Promise<A2AError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(A2AError);
  return e as A2AError;
}

/**
 * What `p` settles to within `ms` (3 s by default; past it the test fails
 * saying so): the error it rejects with, or an Error saying it succeeded.
 * For calls whose classes come from a module loaded afresh, where
 * `failure`'s instanceof does not hold.
 */
export function settled(p: Promise<unknown>, ms = 3000): Promise<unknown> {
  return within(
    p.then(
      () => new Error("the call succeeded"),
      (e: unknown) => e,
    ),
    ms,
    "the call settling",
  );
}

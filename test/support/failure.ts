import { expect } from "vitest";
import { A2AError } from "../../src/index.js";

/** The error `p` rejects with; the test fails unless it rejects, with an A2AError. */
export async function failure(p: Promise<unknown>): Promise<A2AError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(A2AError);
  return e as A2AError;
}

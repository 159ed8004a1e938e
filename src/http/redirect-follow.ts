/**
 * Following the same-origin redirects of an A2A call (the rule is in
 * redirects.ts), loaded when an agent first redirects.
 */
import type { UniversalClientFn, UniversalClientRequest, UniversalClientResponse } from "@connectrpc/connect/protocol";
import { RedirectRefusedError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import type { isRedirectStatus, redirectTarget } from "./redirect-target.js";

/**
 * The start's reading of a redirect, handed over by redirects.ts rather than
 * imported: imported here too, redirect-target.ts would be a chunk of its
 * own that every app loads at start (docs/size.md).
 */
export interface RedirectKit {
  isRedirectStatus: typeof isRedirectStatus;
  redirectTarget: typeof redirectTarget;
}

/** Same-origin redirects followed for one call, at most. */
const MAX_REDIRECTS = 5;

/**
 * Follows the same-origin redirects that repeat the request unchanged.
 * The request body is sent again: the bindings give it as a re-iterable
 * single buffer (`single()`).
 */
export async function follow(
  client: UniversalClientFn,
  req: UniversalClientRequest,
  res: UniversalClientResponse,
  binding: Binding,
  { isRedirectStatus, redirectTarget }: RedirectKit,
): Promise<UniversalClientResponse> {
  const first = new URL(req.url);
  let current = first;
  for (let hop = 0; isRedirectStatus(res.status); hop++) {
    const location = res.header.get("Location");
    // A 3xx without a Location is just an unsuccessful answer.
    if (location === null) return res;
    await res.body[Symbol.asyncIterator]().return?.();
    const status = res.status;
    const refuse = (why: string) => new RedirectRefusedError(why, { binding, httpStatus: status });
    const target = redirectTarget(location, current, { binding, httpStatus: status });
    if (target.origin !== first.origin) {
      throw refuse(
        `${first.origin} answered HTTP ${status} redirecting to another origin (${target.origin}); A2A calls do not follow redirects to another origin, so the request and its credentials were not sent there`,
      );
    }
    if (status !== 307 && status !== 308 && req.method !== "GET") {
      throw refuse(
        `${current.href} answered HTTP ${status}, which clients may follow as a GET without the body; for a ${req.method} only 307 and 308 redirects are followed`,
      );
    }
    if (hop >= MAX_REDIRECTS) throw refuse(`more than ${MAX_REDIRECTS} redirects from ${first.href}`);
    current = target;
    res = await client({ ...req, url: target.href });
  }
  return res;
}

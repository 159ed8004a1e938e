/**
 * What an A2A call does with a redirect, whatever HTTP client carries it.
 * A call carries credentials (an API key, a bearer token, cookies) and a
 * request body, so:
 *
 * - a redirect to another origin is never followed: the call fails with
 *   `RedirectRefusedError` naming both origins, and the other origin gets
 *   nothing (an https URL never goes to http: that is another origin too);
 * - a redirect within the origin is followed only when it repeats the
 *   request as it was: 307 and 308 for every method (same method, same
 *   body), 301, 302 and 303 for a GET; a POST answered with 301, 302 or 303
 *   (which would turn it into a body-less GET) fails with
 *   `RedirectRefusedError`;
 * - at most `MAX_REDIRECTS` hops (redirect-follow.ts, which does the
 *   following and is loaded when an agent first redirects).
 *
 * The HTTP clients of this package do not follow redirects themselves
 * (fetch with `redirect: "manual"`, node:http never does); the bindings
 * apply this rule to whatever client they are given.
 */
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import type { Binding } from "../base/bindings.js";
import { isRedirectStatus, redirectTarget } from "./redirect-target.js";

/** `client` with the redirect rule of A2A calls (see the module comment) applied to its answers. */
export function withRedirectRule(client: UniversalClientFn, binding: Binding): UniversalClientFn {
  return async (req) => {
    const res = await client(req);
    if (!isRedirectStatus(res.status)) return res;
    // Loaded when first needed: agents rarely redirect.
    const { follow } = await import("./redirect-follow.js");
    return follow(client, req, res, binding, { isRedirectStatus, redirectTarget });
  };
}

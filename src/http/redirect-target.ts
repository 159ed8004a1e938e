/**
 * Reading a redirect answer, whoever follows it: whether a status redirects,
 * and where its `Location` points. Shared by the redirect rule of calls
 * (redirects.ts, redirect-follow.ts), gRPC-web, OAuth and document fetches.
 */
import { RedirectRefusedError, type A2AErrorInit } from "../errors/family.js";

/** Whether a status is a redirect that points somewhere (304 Not Modified does not). */
export function isRedirectStatus(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/** Where a redirect's `Location` points, from the URL that answered; refused (with `init`) when it is not a URL. */
export function redirectTarget(location: string, from: URL, init?: A2AErrorInit): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new RedirectRefusedError(`${from.href} redirects to something that is not a URL`, init);
  }
}

/**
 * How a failed check is reported inside the verifier: a Rejection, thrown by
 * any step and turned into a {@link VerificationFailure} of the result, with
 * the publisher's text in its message kept short.
 */
import type { VerificationFailure, VerificationFailureCode } from "../errors/verification-result.js";

/** A failed check of one signature; becomes a {@link VerificationFailure}. */
export class Rejection extends Error {
  constructor(
    readonly code: VerificationFailureCode,
    message: string,
  ) {
    super(message);
  }
}

/** Header values come from the card's publisher: keep what is echoed short. */
export function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** The message of what was thrown, whatever it is. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

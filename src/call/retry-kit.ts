/**
 * The code of the start that the retry loop (retry.ts, loaded on demand)
 * uses, handed to it by its callers (the client's unary calls, and
 * `connect()` checking a policy) rather than imported: a module that the
 * loop imported too would leave the start's chunk for a chunk shared with
 * it, which every app loads at start (docs/size.md, "Where the bytes go").
 */
import { ATTEMPT_RULES } from "./attempt-rules.js";
import { shownValue } from "./option-checks.js";
import { followSignal } from "../base/abort.js";
import { sleep } from "../base/timers.js";

/** The rules of another attempt (attempt-rules.ts), how a value is shown in an error, and the signal and timer helpers. */
export const RETRY_KIT = { ...ATTEMPT_RULES, shownValue, followSignal, sleep } as const;

/** The type of `RETRY_KIT`. */
export type RetryKit = typeof RETRY_KIT;

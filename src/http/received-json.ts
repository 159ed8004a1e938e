/**
 * The JSON an Agent Card result was read from, kept beside the message.
 * A card's signatures cover the members the agent sent, fields this schema
 * does not know included, and parsing drops those: a verifier needs the JSON.
 * Only results that are Agent Cards (GetExtendedAgentCard) are kept, so no
 * other call pays for it; the entry goes with the message (a WeakMap).
 */
import type { DescMethod } from "@bufbuild/protobuf";

/** A result's JSON as received, and how to read the message from it again. */
export interface ReceivedJson<T> {
  /** The result's JSON object as the agent sent it. */
  readonly json: Readonly<Record<string, unknown>>;
  /** The body it was read from (for a JSON-RPC result, the whole response object). */
  readonly text: string;
  /** A fresh message read from `json` the way the transport read the one it returned. */
  reparse(): T;
}

const kept = new WeakMap<object, ReceivedJson<unknown>>();

/** Whether results of `method` keep the JSON they were read from. */
export function keepsReceivedJson(method: DescMethod): boolean {
  // The 1.0 card, and the 0.3 one (the 0.3 HTTP+JSON wire reads the 0.3 message first).
  return method.output.typeName.endsWith(".AgentCard");
}

/** Remembers the JSON `message` was read from. */
export function keepReceivedJson<T extends object>(message: T, received: ReceivedJson<T>): void {
  kept.set(message, received);
}

/** The JSON `message` was read from, when its transport kept it. */
export function receivedJsonOf<T extends object>(message: T): ReceivedJson<T> | undefined {
  return kept.get(message) as ReceivedJson<T> | undefined;
}

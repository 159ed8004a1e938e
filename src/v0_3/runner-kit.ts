/**
 * The code of the start that the 0.3 adapter (adapter.ts, part of the 0.3
 * wire that loads on demand) runs calls with: the call runner, the request
 * interceptors see, the checks of a response's shape, the reading of a
 * message's ProtoJSON (a 0.3 card's, as 1.0's, and a data part's) and its
 * writing. Its loaders hand it
 * over (bindings/v0_3-kit.ts says why) rather than the adapter importing it.
 */
import { mergeHeaders } from "../call/options.js";
import { noteUrlFromAbove } from "../call/target.js";
import { runStreaming, runUnary } from "../http/run-call.js";
import { callRequest } from "../http/call-request.js";
import { keepReceivedJson, receivedJsonOf } from "../http/received-json.js";
import { checkedResponse } from "../protocol/response-shape.js";
import { messageFromJson, protoJsonOf } from "../protocol/proto-json.js";
import { addV03ExtensionsHeader } from "../protocol/headers.js";
import { mapAsync, mapRequests, onlyValue, single } from "../base/iterables.js";

export const V03_RUNNER_KIT = {
  mergeHeaders,
  noteUrlFromAbove,
  runStreaming,
  runUnary,
  callRequest,
  keepReceivedJson,
  receivedJsonOf,
  checkedResponse,
  messageFromJson,
  protoJsonOf,
  addV03ExtensionsHeader,
  mapAsync,
  mapRequests,
  onlyValue,
  single,
} as const;

/** The type of `V03_RUNNER_KIT`. */
export type V03RunnerKit = typeof V03_RUNNER_KIT;

/** The start's ProtoJSON reading and writing, for the translation of data parts (messages.ts) and cards (card-proto.ts). */
export type V03JsonKit = Pick<V03RunnerKit, "messageFromJson" | "protoJsonOf">;

/**
 * The prepare step, once per operation: the A2AClient's call made into its
 * record (record.ts), which the steps after it read rather than working
 * anything out again: the method and what it does (method-traits.ts), the
 * request as sent (request.ts's rules: read from plain input, the client's
 * tenant, the activated extensions and a message id on a message sent),
 * the headers with the activated extensions (options.ts), the caller's
 * signal, and the call's one deadline, which the record is (deadline.ts).
 *
 * A read that a resumable stream makes, or its resubscribe, is a call of
 * the stream: it is prepared into the stream's record, whose deadline and
 * position it shares.
 */
import type { DescMessage, DescMethod, MessageInitShape } from "@bufbuild/protobuf";
import { traitsOf } from "./method-traits.js";
import { withExtensions } from "./options.js";
import { CallRecord } from "./record.js";
import { outgoingRequest, readRequest, type RequestInput } from "./request.js";

/** What one call asks for (the A2AClient's CallOptions, in part). */
export interface CallSettings {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  headers?: HeadersInit | undefined;
  extensions?: readonly string[] | undefined;
}

/** What holds for every call of a client (the A2AClient's ClientOptions, in part). */
export interface ClientSettings {
  tenant?: string | undefined;
  extensions?: readonly string[] | undefined;
  /** A unary call's timeout when it gives none; a stream's is only its own. */
  timeoutMs?: number | undefined;
}

/** A prepared call of `M`: its record, with its method and a request of its input. */
export type PreparedCall<I extends DescMessage, M extends DescMethod = DescMethod> = CallRecord & {
  method: M;
  request: MessageInitShape<I> | Promise<MessageInitShape<I>>;
};

/**
 * The record of a call of `method` with `request` (in either shape the
 * client takes), as `call` and `client` ask, made here or, for a call of a
 * resumable stream, `stream`'s. The request is a promise when it must be
 * read from plain input (the reader loads on demand); its wait is the
 * caller's to bound, by the record's deadline (`waitFor`).
 *
 * @throws InvalidParamsError naming a header or an extension that cannot be sent.
 */
export function prepareCall<I extends DescMessage, M extends DescMethod & { readonly input: I }>(
  method: M,
  request: RequestInput<I>,
  call: CallSettings,
  client: ClientSettings,
  stream?: CallRecord,
): PreparedCall<I, M> {
  const unary = method.methodKind === "unary";
  const givenMs = unary ? (call.timeoutMs ?? client.timeoutMs) : call.timeoutMs;
  // The call's extensions on top of the client's, without a copy when either
  // is empty, activated in its headers too. Checked before the request is
  // read: a header that cannot be sent ends the call before any reading.
  let extensions = client.extensions;
  let headers = call.headers;
  if (call.extensions?.length) extensions = extensions?.length ? [...extensions, ...call.extensions] : call.extensions;
  if (extensions?.length) headers = withExtensions(headers, extensions);
  const traits = traitsOf(method);
  const record = (stream ?? new CallRecord(unary ? "unary" : "stream", givenMs)) as PreparedCall<I, M>;
  const read = readRequest(method.input, request);
  record.method = method;
  record.traits = traits;
  record.request =
    read instanceof Promise
      ? read.then((r) => outgoingRequest(traits, r, client.tenant, extensions))
      : outgoingRequest(traits, read, client.tenant, extensions);
  record.headers = headers;
  record.signal = call.signal;
  record.givenMs = givenMs;
  return record;
}

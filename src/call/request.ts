/**
 * What every call's request gets, whatever the binding: the tenant of spec
 * 8.3.2, the activated extensions on a message sent, and a message id on a
 * message sent, given once so that a message sent again (a failover, a
 * resumption's resend) is recognisable as the same one. The A2AClient
 * applies these once per operation; the failover runner applies the tenant
 * of each interface it tries with `withTenant`. Headers: options.ts.
 */
import type { DescMessage, DescMethod, MessageInitShape } from "@bufbuild/protobuf";
import { uuid } from "../util.js";
import { plainInput } from "./plain-input.js";

/** The names of the methods whose request carries a message to send. */
export const SENDS: ReadonlySet<string> = new Set(["SendMessage", "SendStreamingMessage"]);

/** The part of a request these rules look at. */
interface RequestFields {
  tenant?: string;
  message?: { messageId?: string; extensions?: string[] };
}

/**
 * The request of a call of `method` as sent: read from plain JavaScript in
 * either shape, the generated types' or the spec's JSON (plain-input.ts),
 * `tenant` (when given) in place of the request's, `extensions` added to
 * its message's, and a message id for a message sent without one. The
 * request itself when nothing changes; otherwise one copy (and one of its
 * message).
 *
 * @throws InvalidParamsError naming the field of a request of neither shape.
 */
export function outgoingRequest<I extends DescMessage>(
  method: DescMethod,
  request: MessageInitShape<I>,
  tenant: string | undefined,
  extensions: readonly string[] | undefined,
): MessageInitShape<I> {
  request = plainInput(method.input, request) as MessageInitShape<I>;
  const message = (request as RequestFields).message;
  const addExtensions = message && extensions?.length;
  const addId = message && !message.messageId && SENDS.has(method.name);
  if (tenant === undefined && !addExtensions && !addId) return request;
  const out = { ...request } as RequestFields;
  if (tenant !== undefined) out.tenant = tenant;
  if (addExtensions || addId) {
    out.message = {
      ...message,
      extensions: addExtensions ? [...new Set([...(message.extensions ?? []), ...extensions!])] : message!.extensions,
      messageId: message!.messageId || uuid(),
    };
  }
  return out as MessageInitShape<I>;
}

/**
 * `request` with exactly `tenant`: spec 8.3.2 has a request carry the
 * tenant of the interface it goes to, whatever the caller put there.
 */
export function withTenant<T>(request: T, tenant: string): T {
  return { ...request, tenant } as T;
}

/** A call's extensions on top of the client's, without a copy when either is empty. */
export function activatedExtensions(
  client: readonly string[] | undefined,
  call: readonly string[] | undefined,
): readonly string[] | undefined {
  return call?.length ? (client?.length ? [...client, ...call] : call) : client;
}

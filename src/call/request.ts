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

/** The methods whose request carries a message to send. */
const SENDS: ReadonlySet<string> = new Set(["SendMessage", "SendStreamingMessage"]);

/** Whether `method` sends a message (SendMessage, SendStreamingMessage). */
export function isSend(method: DescMethod | string): boolean {
  return SENDS.has(typeof method === "string" ? method : method.name);
}

/** The part of a request these rules look at. */
interface RequestFields {
  tenant?: string;
  message?: { messageId?: string; extensions?: string[] };
}

/**
 * The request of a call of `method` as sent: `tenant` (when given) in place
 * of the request's, `extensions` added to its message's, and a message id
 * for a message sent without one. The request itself when nothing changes;
 * otherwise one copy (and one of its message).
 */
export function outgoingRequest<I extends DescMessage>(
  method: DescMethod,
  request: MessageInitShape<I>,
  tenant: string | undefined,
  extensions: readonly string[] | undefined,
): MessageInitShape<I> {
  const fields = request as RequestFields;
  const message = fields.message;
  const addExtensions = message !== undefined && extensions !== undefined && extensions.length > 0;
  const addId = message !== undefined && !message.messageId && isSend(method);
  if (tenant === undefined && !addExtensions && !addId) return request;
  const out = { ...request } as RequestFields;
  if (tenant !== undefined) out.tenant = tenant;
  if (addExtensions || addId) {
    const m = { ...message };
    if (addExtensions) m.extensions = [...new Set([...(message.extensions ?? []), ...extensions])];
    if (addId) m.messageId = uuid();
    out.message = m;
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
  if (!call || call.length === 0) return client;
  if (!client || client.length === 0) return call;
  return [...client, ...call];
}

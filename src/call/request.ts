/**
 * What every call's request gets, whatever the binding: the tenant of spec
 * 8.3.2, the activated extensions on a message sent, and a message id on a
 * message sent, given once so that a message sent again (a failover, a
 * resumption's resend) is recognisable as the same one. The prepare step
 * (prepare.ts) applies these once per operation; failover gives each
 * request the tenant of the interface it goes to. Headers: options.ts.
 */
import type { DescMessage, MessageInitShape, MessageJsonType } from "@bufbuild/protobuf";
import { isMessage, ScalarType } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { InvalidParamsError } from "../errors/family.js";
import { messageFromJson } from "../protocol/proto-json.js";
import { isRecord } from "../base/is-record.js";
import { onDemand } from "../base/on-demand.js";
import { uuid } from "../base/uuid.js";
import type { MethodTraits } from "./method-traits.js";

/** The part of a request these rules look at. */
interface RequestFields {
  tenant?: string;
  message?: { messageId?: string; extensions?: string[] };
}

/**
 * The request of a call of a method with `traits` as sent, from a request in the init
 * shape (see `readRequest`): `tenant` (when given) in place of the
 * request's, `extensions` added to its message's, and a message id for a
 * message sent without one. The request itself when nothing changes;
 * otherwise one copy (and one of its message).
 */
export function outgoingRequest<I extends DescMessage>(
  traits: MethodTraits,
  request: MessageInitShape<I>,
  tenant: string | undefined,
  extensions: readonly string[] | undefined,
): MessageInitShape<I> {
  const message = (request as RequestFields).message;
  const addExtensions = message && extensions?.length;
  const addId = message && !message.messageId && traits.sendsMessage;
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
 * A request as the operations take it, in either of the shapes the client
 * reads (`readRequest`): the generated init shape (`role: Role.USER`, a part
 * as `{ content: { case: "text", value } }`: what `create()` takes, made
 * messages included) or the spec's JSON shape, the generated `...Json` type
 * (`role: "ROLE_USER"`, a part as `{ text }`: `SendMessageRequestJson`).
 * Each shape is checked whole, so a typo in either (a field, an enum name)
 * does not compile. A request mixing the two, or naming a field by its
 * proto name (`message_id`), as code typed `any` or a parsed file may, is
 * read at run time too, but does not compile.
 * @example
 * ```ts
 * import { connect, userMessage, Role, type SendMessageRequestJson } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * // One message written three ways: made by a helper, in the init shape, in the spec's JSON shape.
 * await client.sendMessage({ message: userMessage("hi") });
 * await client.sendMessage({ message: { role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] } });
 * await client.sendMessage({ message: { role: "ROLE_USER", parts: [{ text: "hi" }] } });
 * // A request read from a file, typed by the generated JSON type:
 * const saved: SendMessageRequestJson = JSON.parse('{"message":{"role":"ROLE_USER","parts":[{"text":"hi"}]}}');
 * await client.sendMessage(saved);
 * ```
 * @category Connect and call
 */
export type RequestInput<S extends DescMessage> =
  | MessageInitShape<S>
  | (ReadonlyJson<MessageJsonType<S>> & {
      /**
       * Never set in the JSON shape. Every field of a JSON type is optional, so
       * a made message of another request (a `SendMessageRequest` given to
       * `getTask`) would otherwise pass for one by the fields they share (`tenant`).
       */
      $typeName?: never;
    });

/**
 * A JSON type whose arrays and objects may be readonly at any depth, so that
 * a request written `as const` (the usual way to keep `"ROLE_USER"` a
 * literal) is taken: the client never changes a request it is given.
 */
type ReadonlyJson<T> = T extends readonly (infer E)[]
  ? readonly ReadonlyJson<E>[]
  : T extends object
    ? { readonly [K in keyof T]: ReadonlyJson<T[K]> }
    : T;

// The reader of requests of other shapes, loaded by the first call that has one.
const plainInput = onDemand(async () =>
  (await import("./plain-input.js")).plainInputWith({
    messageFromJson,
    isMessage,
    base64Decode,
    invalid: (m) => new InvalidParamsError(m),
  }),
);

/**
 * `request` in the init shape of the generated types: itself when every
 * field set is of that shape at a glance (a message made by `create()` or
 * `userMessage`, an id, a number: what typed code passes), checked without
 * a walk; otherwise read by plain-input.ts from plain JavaScript of either
 * shape, the generated types' or the spec's JSON (`{ text }` parts,
 * `"ROLE_USER"`).
 *
 * At a glance: strings, int32s (whole numbers in range: NaN, 1.5 or 2^40 go
 * to the reader, which names them), booleans, enums as numbers, messages
 * made. Whichever type a request was written as, what passes has been seen
 * field by field in the init shape.
 *
 * @throws InvalidParamsError (the promise rejects) naming the field of a request of neither shape.
 */
export function readRequest<I extends DescMessage>(
  schema: I,
  request: RequestInput<I>,
): MessageInitShape<I> | Promise<MessageInitShape<I>> {
  if (isMessage(request, schema)) return request as MessageInitShape<I>;
  if (!isRecord(request) || Object.getPrototypeOf(request) !== Object.prototype) return readPlain(schema, request);
  for (const key in request) {
    const v = request[key];
    const f = schema.field[key];
    if (
      v !== undefined &&
      (!f ||
        f.oneof ||
        (f.fieldKind === "message"
          ? !isMessage(v, f.message)
          : typeof v !== (f.fieldKind === "enum" ? "number" : f.fieldKind === "scalar" ? TYPES[f.scalar] : undefined) ||
            (f.fieldKind === "scalar" && f.scalar === ScalarType.INT32 && ((v as number) | 0) !== v)))
    )
      return readPlain(schema, request);
  }
  return request as MessageInitShape<I>;
}

/** `request`, of neither shape at a glance, read by plain-input.ts (loaded then). */
function readPlain<I extends DescMessage>(schema: I, request: RequestInput<I>): Promise<MessageInitShape<I>> {
  return plainInput().then((read) => read(schema, request) as MessageInitShape<I>);
}

// What `typeof` gives for a value in the init shape, by scalar type, for the scalars checked at a glance.
const TYPES: Partial<Record<ScalarType, string>> = {
  [ScalarType.STRING]: "string",
  [ScalarType.INT32]: "number",
  [ScalarType.BOOL]: "boolean",
};

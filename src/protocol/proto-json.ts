/**
 * Messages from ProtoJSON and requests to it, the one way this package
 * reads and writes them: through our reflective reader and writer
 * (json-read.ts, json-write.ts: what protobuf-es `fromJson` with unknown
 * fields ignored, so that newer servers do not break older clients, and
 * `toJson` give, for the field kinds our schemas use), or through generated
 * readers and writers where the caller passes them. protobuf-es's own
 * `fromJson` and `toJson` are called nowhere outside src/testing/: a call
 * anywhere in an app, code on demand included, keeps them and the
 * well-known types' descriptors in its bundle at start (docs/size.md).
 *
 * The generated readers (gen/lf/a2a/v1/a2a_json_readers.ts) cover every
 * response a client reads and the Agent Card, stream events first:
 * straight-line code for the plain, common case, several times faster than
 * reflection and with a fraction of its garbage. What a reader does not
 * take on goes to json-read.ts, so that edge cases and errors are always
 * the reflective reader's. The Node entry's HTTP transports are given them
 * (src/node-runtime.ts); the browser entry's are not, as they would add
 * about 5.5 KB gzip to every bundle at start for a speed that matters only
 * at many events per second.
 *
 * The generated writers (gen/lf/a2a/v1/a2a_json_writers.ts) write every
 * request of the service about four times faster than reflection, and give
 * the rest (a value of the wrong type, a timestamp out of range) to
 * json-write.ts, so that its errors stay its own; those are reported as an
 * InvalidParamsError naming the field, never its value (a request may carry
 * credentials). The Node entry's transports are given them too; the
 * browser entry's are not, as the reflective writer, which the card's
 * canonical form and the 0.3 wire use too, is in every bundle anyway, so
 * the writers would only add to it.
 */
import type { DescMessage, JsonObject, JsonValue, Message, MessageShape } from "@bufbuild/protobuf";
import { isJsonObject } from "../base/is-record.js";
import { InvalidParamsError } from "../errors/family.js";
import { JsonReadError, readJson } from "./json-read.js";
import { writeJson } from "./json-write.js";
import { isWellKnown } from "./well-known.js";

/** Reads a message from a value of `JSON.parse`, or returns undefined for json-read.ts to read it. */
type JsonReader = (json: unknown) => Message | undefined;

/** Writes a request as ProtoJSON, or returns undefined for json-write.ts to write it. */
type JsonWriter = (message: unknown) => JsonObject | undefined;

/** Generated readers and writers, by full type name (gen/lf/a2a/v1/a2a_json_readers.ts, a2a_json_writers.ts). */
export interface GeneratedJson {
  readonly readers: Readonly<Record<string, JsonReader | undefined>>;
  readonly writers: Readonly<Record<string, JsonWriter | undefined>>;
}

/**
 * The message of type `schema` that `json` (a value from `JSON.parse`)
 * describes, read as `fromJson` reads it with unknown fields ignored; where
 * that refuses, read again without the timestamps that name no time zone
 * (see below). Throws where `fromJson` throws, naming the field's path.
 * (A response the generated readers read is read by `responseFromJson`.)
 */
export function messageFromJson<S extends DescMessage>(schema: S, json: JsonValue): MessageShape<S> {
  try {
    return readJson(schema, json);
  } catch (e) {
    const zoned = withoutZonelessTimes(schema, json);
    if (zoned === undefined) throw e;
    return readJson(schema, zoned);
  }
}

/** A date and time with no `Z` or offset: which instant it names depends on a zone it does not give. */
const ZONELESS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/;

/**
 * `json` without the timestamps that name no time zone
 * (`2026-12-03T16:23:00.084905`, as FastA2A writes its local time), or
 * undefined when it has none. Such a time is ambiguous, so it is read as
 * absent rather than guessed at; the rest of the message stands.
 */
function withoutZonelessTimes(schema: DescMessage, json: unknown): JsonValue | undefined {
  if (!isJsonObject(json)) return undefined;
  let out: Record<string, unknown> | undefined;
  const put = (key: string, value: unknown) => {
    out ??= { ...json };
    if (value === undefined) delete out[key];
    else out[key] = value;
  };
  for (const f of schema.fields) {
    const key = f.jsonName in json ? f.jsonName : f.name;
    const v = json[key];
    if (v === undefined || v === null || (f.fieldKind !== "message" && f.fieldKind !== "list")) continue;
    const message = f.fieldKind === "message" ? f.message : f.listKind === "message" ? f.message : undefined;
    if (message === undefined) continue;
    if (f.fieldKind === "message") {
      if (message.typeName === "google.protobuf.Timestamp") {
        if (typeof v === "string" && ZONELESS.test(v)) put(key, undefined);
      } else if (!isWellKnown(message)) {
        const inner = withoutZonelessTimes(message, v);
        if (inner !== undefined) put(key, inner);
      }
    } else if (Array.isArray(v) && !isWellKnown(message)) {
      let changed = false;
      const items = v.map((item: unknown) => {
        const inner = withoutZonelessTimes(message, item);
        if (inner === undefined) return item;
        changed = true;
        return inner;
      });
      if (changed) put(key, items);
    }
  }
  return out as JsonValue | undefined;
}

/**
 * The JSON path (`status.timestamp`, `artifacts[0].parts[1].text`) at which
 * `messageFromJson` stopped reading, from the error it threw; undefined
 * when the value as a whole was refused, or for another error.
 */
export function unreadablePath(e: unknown): string | undefined {
  return e instanceof JsonReadError && e.path !== "" ? e.path : undefined;
}

/**
 * `message` (of type `schema`, a request) as ProtoJSON, a new object each
 * call, written by `writers[schema.typeName]` where there is one.
 *
 * @throws InvalidParamsError naming the field that cannot be written (a
 * value of the wrong type), never its value.
 */
export function messageToJson<S extends DescMessage>(schema: S, message: MessageShape<S>, writers?: GeneratedJson["writers"]): JsonValue {
  try {
    return writers?.[schema.typeName]?.(message) ?? writeJson(schema, message);
  } catch (e) {
    throw new InvalidParamsError(`the request cannot be written as ProtoJSON (${failedField(e)})`);
  }
}

/**
 * `message` (of type `schema`) as ProtoJSON, as protobuf-es `toJson` writes
 * it with its default options: for results, cards and values that are not
 * a request. Throws as `toJson` does, naming the field but not its value.
 */
export function protoJsonOf<S extends DescMessage>(schema: S, message: MessageShape<S>): JsonValue {
  return writeJson(schema, message);
}

/**
 * Which field could not be read or written (by json-read.ts, json-write.ts
 * or protobuf-es's binary code, whose messages begin alike), without the
 * value protobuf-es quotes after it (a push config's token, a credential):
 * neither the message nor a `cause` carries what was in the field. Its
 * reason is kept only where it quotes nothing (a NaN in a Value, a
 * timestamp out of range).
 */
export function failedField(e: unknown): string {
  const text = e instanceof Error ? e.message : "";
  const m = /cannot (?:en|de)code (?:field|message|enum) ([\w.]+)/.exec(text) ?? /^(google\.protobuf\.\w+) /.exec(text);
  if (!m) return "malformed";
  const reason =
    /cannot be NaN or Infinity|must have a value|value out of range|must be from [\dT:Z-]+ to [\dT:Z-]+ inclusive|nanos [a-z ]+/.exec(text);
  return `at ${m[1]}${reason ? `: ${reason[0]}` : ""}`;
}

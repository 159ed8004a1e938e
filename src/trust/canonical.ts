/**
 * The canonical form of an Agent Card that signatures cover (A2A 1.0,
 * section 8.4.1): the card's ProtoJSON with protobuf field presence
 * respected, every field the schema marks `REQUIRED` present even when it
 * holds its default, the top-level `signatures` removed, serialized with the
 * JSON Canonicalization Scheme (RFC 8785).
 *
 * Which fields are REQUIRED is read from the proto's
 * `google.api.field_behavior` options, as generation writes them out
 * (protocol/required.ts), so the rule follows the schema rather than a list
 * kept by hand. That reading, and the ProtoJSON writing of the card
 * (protocol/proto-json.ts's `protoJsonOf`), are the start's code, handed in
 * by the caller (trust/verify-kit.ts's `VERIFY_KIT`), as this module loads
 * on demand with the verifier; public.ts gives the public functions their kit.
 *
 * The input is a parsed card. Fields the schema does not know were dropped
 * when it was parsed, so they are neither covered by a signature nor
 * returned to the caller.
 */
import { create, ScalarType, type DescField, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import canonicalize from "canonicalize";
import { isJsonObject } from "../base/is-record.js";
import { AgentCardSchema, type AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { VerifyKit } from "./verify-kit.js";

/** What this module needs of the start's code (verify-kit.ts): which fields are REQUIRED, and ProtoJSON's writing. */
export type CanonicalKit = Pick<VerifyKit, "requiredFields" | "protoJsonOf">;

/** The RFC 8785 text of a card's signed content (public.ts's `canonicalCardJson`). */
export function canonicalJsonWith(kit: CanonicalKit, card: AgentCard): string {
  return canonicalText(normalisedCardJson(card, kit));
}

/** The normalised form of section 8.4.1 as a JSON object, before RFC 8785: what {@link canonicalJsonWith} serializes. */
export function normalisedCardJson(card: AgentCard, kit: CanonicalKit): JsonObject {
  const json = kit.protoJsonOf(AgentCardSchema, card) as JsonValue;
  if (!isJsonObject(json)) throw new TypeError("an Agent Card must serialize to a JSON object");
  addRequiredDefaults(json, AgentCardSchema, kit, 0);
  delete json[AgentCardSchema.field.signatures!.jsonName];
  return json;
}

/** RFC 8785 text of `json`. */
export function canonicalText(json: unknown): string {
  // canonicalize throws for lone surrogates and non-finite numbers, which
  // RFC 8785 cannot represent; a card carrying them cannot be signed.
  const text = canonicalize(json);
  if (text === undefined) throw new TypeError("the Agent Card has no canonical JSON form");
  return text;
}

/**
 * Adds, in place, to `normalised` (the normalised form of a message of type
 * `desc`) the members of `received` (the JSON it was parsed from) that the
 * schema does not know, as received, in this object and in every message
 * nested in it: the form a signer that knows newer fields makes by section
 * 8.4.1. Well-known types (a Struct) keep every member already.
 */
export function withUnknownMembers(
  normalised: Record<string, unknown>,
  received: Readonly<Record<string, unknown>>,
  desc: DescMessage,
): Record<string, unknown> {
  for (const [key, value] of Object.entries(received)) {
    const field = desc.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field) {
      // Defined, not assigned: a member named `__proto__` is a member here, as in the JSON.
      Object.defineProperty(normalised, key, { value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    const child = field.message;
    const into = normalised[field.jsonName];
    if (child === undefined || isWellKnown(child) || into === undefined) continue;
    // A message, a list of them (same positions) or a map of them (same keys), as in `received`.
    const pairs: Array<[unknown, unknown]> =
      field.fieldKind === "message"
        ? [[into, value]]
        : Array.isArray(into) && Array.isArray(value)
          ? into.map((v, i) => [v, value[i]])
          : isJsonObject(into) && isJsonObject(value)
            ? Object.keys(into).map((k) => [into[k], value[k]])
            : [];
    for (const [n, r] of pairs) if (isJsonObject(n) && isJsonObject(r)) withUnknownMembers(n, r, child);
  }
  return normalised;
}

/** The bytes a card signature covers: UTF-8 of {@link canonicalJsonWith} (public.ts's `canonicalCardBytes`). */
export function canonicalBytesWith(kit: CanonicalKit, card: AgentCard): Uint8Array {
  return new TextEncoder().encode(canonicalJsonWith(kit, card));
}

/**
 * Adds, in place, every REQUIRED field missing from `json` (the ProtoJSON of
 * a message of type `desc`) with its JSON default, in this object and every
 * message nested in it.
 */
export function addRequiredDefaults(json: JsonObject, desc: DescMessage, kit: CanonicalKit, depth = 0): JsonObject {
  if (depth > MAX_DEPTH) throw new TypeError(`message nesting deeper than ${MAX_DEPTH} levels`);
  const plan = planFor(desc, kit);
  for (const field of plan.required) {
    if (!(field.jsonName in json)) json[field.jsonName] = defaultJson(field, kit, depth);
  }
  for (const field of plan.nested) {
    const value = json[field.jsonName];
    if (value === undefined || value === null) continue;
    const child = field.message!;
    if (field.fieldKind === "message") {
      if (isJsonObject(value)) addRequiredDefaults(value, child, kit, depth + 1);
    } else if (field.fieldKind === "list") {
      if (Array.isArray(value)) for (const v of value) if (isJsonObject(v)) addRequiredDefaults(v, child, kit, depth + 1);
    } else if (isJsonObject(value)) {
      for (const v of Object.values(value)) if (isJsonObject(v)) addRequiredDefaults(v, child, kit, depth + 1);
    }
  }
  return json;
}

// Far deeper than any card; a bound keeps a REQUIRED message field that
// refers back to its own type from recursing without end.
const MAX_DEPTH = 64;

interface Plan {
  readonly required: readonly DescField[];
  /** Fields whose values are messages with their own REQUIRED fields to fill. */
  readonly nested: readonly DescField[];
}

const plans = new WeakMap<DescMessage, Plan>();

function planFor(desc: DescMessage, kit: CanonicalKit): Plan {
  let plan = plans.get(desc);
  if (plan) return plan;
  const nested: DescField[] = [];
  for (const field of desc.fields) {
    const child = field.message;
    // Well-known types have their own JSON forms (a Struct is any object),
    // not one key per field, so there is nothing to fill inside them.
    if (child !== undefined && !isWellKnown(child)) nested.push(field);
  }
  plan = { required: kit.requiredFields(desc), nested };
  plans.set(desc, plan);
  return plan;
}

/** The JSON a REQUIRED field takes when it is absent. */
function defaultJson(field: DescField, kit: CanonicalKit, depth: number): JsonValue {
  switch (field.fieldKind) {
    case "list":
      return [];
    case "map":
      return {};
    case "enum": {
      if (field.enum.typeName === "google.protobuf.NullValue") return null;
      const zero = field.enum.values.find((v) => v.number === 0) ?? field.enum.values[0];
      return zero?.name ?? 0;
    }
    case "message": {
      const child = field.message;
      if (isWellKnown(child)) {
        try {
          return kit.protoJsonOf(child, create(child));
        } catch {
          // google.protobuf.Value has no JSON form while empty.
          return null;
        }
      }
      return addRequiredDefaults({}, child, kit, depth + 1);
    }
    case "scalar":
      return scalarDefault(field.scalar);
  }
}

function scalarDefault(scalar: ScalarType): JsonValue {
  switch (scalar) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return "";
    case ScalarType.BOOL:
      return false;
    // ProtoJSON writes 64-bit integers as strings.
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return "0";
    default:
      return 0;
  }
}

/**
 * As protocol/well-known.ts's: written again here because this module is
 * loaded on demand and takes the start's code only through its kit; an
 * import would split a chunk of its own off the start (some 100 bytes gzip).
 */
function isWellKnown(desc: DescMessage): boolean {
  return desc.typeName.startsWith("google.protobuf.");
}

/**
 * Which fields the protocol marks REQUIRED, from the proto's
 * `google.api.field_behavior` options as generation writes them out
 * (gen/lf/a2a/v1/a2a_facts.ts), so the rule follows the proto rather than a
 * hand-kept list. The descriptors leave the options out: reading them there
 * made every app load descriptor files and extension code.
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { REQUIRED_FIELDS } from "../../gen/lf/a2a/v1/a2a_facts.js";
import { isRecord } from "../base/is-record.js";

const cache = new WeakMap<DescMessage, readonly DescField[]>();

/** REQUIRED fields outside any oneof (a oneof member is present only when chosen). */
export function requiredFields(message: DescMessage): readonly DescField[] {
  let fields = cache.get(message);
  if (!fields) {
    const required = REQUIRED_FIELDS[message.typeName] ?? [];
    fields = message.fields.filter((f) => f.oneof === undefined && required.includes(f.number));
    cache.set(message, fields);
  }
  return fields;
}

/**
 * JSON paths of REQUIRED fields missing from a JSON document of `message`'s
 * type, through nested messages, lists and maps. Presence is judged on the
 * JSON itself: after parsing, an absent string and an empty one look alike.
 */
export function missingRequired(message: DescMessage, json: unknown, path = ""): string[] {
  if (!isRecord(json)) return [];
  const missing: string[] = [];
  for (const f of requiredFields(message)) {
    if (!(f.jsonName in json) && !(f.name in json)) missing.push(path + f.jsonName);
  }
  for (const f of message.fields) {
    const value = json[f.jsonName] ?? json[f.name];
    const at = path + f.jsonName;
    if (f.fieldKind === "message") {
      missing.push(...missingRequired(f.message, value, `${at}.`));
    } else if (f.fieldKind === "list" && f.listKind === "message" && Array.isArray(value)) {
      value.forEach((v, i) => missing.push(...missingRequired(f.message, v, `${at}[${i}].`)));
    } else if (f.fieldKind === "map" && f.mapKind === "message" && isRecord(value)) {
      for (const [k, v] of Object.entries(value)) missing.push(...missingRequired(f.message, v, `${at}.${k}.`));
    }
  }
  return missing;
}

/**
 * The REQUIRED fields of an Agent Card that describe the agent to people
 * and that no call reads (paths with `[]` for any index). A card lacking
 * only these is read, their absence said in a warning: its meaning is not in
 * doubt. What a call needs (interfaces, their URL, binding and version, the
 * capabilities, security schemes, signatures) stays required.
 */
export const DESCRIPTIVE_CARD_FIELDS: ReadonlySet<string> = new Set(
  "name description version provider.url provider.organization defaultInputModes defaultOutputModes skills skills[].id skills[].name skills[].description skills[].tags".split(
    " ",
  ),
);

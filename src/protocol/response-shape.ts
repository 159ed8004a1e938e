/**
 * The shape every response must have, whatever the binding: the response's
 * payload (its oneof, where it has one) is set, and what the proto marks
 * REQUIRED is there. A parser fills in defaults for what a body leaves out,
 * so `{}` reads as a Task with an empty id, or a SendMessageResponse with no
 * payload; this check turns such an answer into a `ProtocolError` instead of
 * a result.
 *
 * What is checked: the REQUIRED fields of the response, and of the messages
 * reached from it through its payload and through REQUIRED fields (the
 * task of a reply, its status; the artifact of an update; each task of a
 * page). Optional parts (a task's history and artifacts, a push config's
 * authentication, a part's content) are the reader's to judge: newer
 * revisions and 0.3 peers fill them in ways this revision does not know.
 * A card (GetExtendedAgentCard's) may lack the REQUIRED fields that only
 * describe the agent, as discovery reads a public card
 * (DESCRIPTIVE_CARD_FIELDS): the extended card replaces that card.
 *
 * Presence is judged on the parsed message, the same on every binding (gRPC
 * cannot tell an empty string from an absent one): a REQUIRED string must
 * be non-empty and a REQUIRED message set. REQUIRED numbers, booleans and
 * lists cannot be told from their zero values, which are legal ones (no
 * tasks, a total of 0), and an enum value from a newer revision reads as
 * the zero value in JSON, so those are not checked.
 *
 * Per response (per stream event) this is a few field reads per message
 * reached, in one loop whatever the depth, with a small stack of the
 * messages still to check; the plan of each message type, with those of
 * the messages it reaches, is worked out once.
 */
import { ScalarType, type DescField, type DescMessage, type DescMethod, type DescOneof } from "@bufbuild/protobuf";
import { DESCRIPTIVE_CARD_FIELDS, requiredFields } from "./required.js";
import { ProtocolError, type A2AErrorInit } from "../errors/family.js";

// REQUIRED strings whose empty value the protocol gives a meaning.
const EMPTY_ALLOWED: ReadonlySet<string> = new Set([
  // "Empty on the last page."
  "lf.a2a.v1.ListTasksResponse.next_page_token",
]);

/** What to check of a message of one type. */
interface Plan {
  /** REQUIRED strings and messages: their zero value means absent. */
  readonly present: readonly DescField[];
  /** REQUIRED fields holding messages (one, or a list), checked in turn with the plan of their type. */
  readonly nested: ReadonlyArray<{ readonly field: DescField; readonly plan: Plan }>;
}

const plans = new WeakMap<DescMessage, Plan>();

/** The plan of `desc`, made (with those it reaches) when not made yet. */
function planOf(desc: DescMessage): Plan {
  const known = plans.get(desc);
  if (known) return known;
  // A card (GetExtendedAgentCard's) is held to what discovery holds a
  // card to: the fields that only describe the agent may be missing.
  const card = desc.typeName === "lf.a2a.v1.AgentCard";
  const required = requiredFields(desc).filter((f) => !card || !DESCRIPTIVE_CARD_FIELDS.has(f.jsonName));
  const nested: { field: DescField; plan: Plan }[] = [];
  const plan: Plan = {
    present: required.filter(
      (f) =>
        !EMPTY_ALLOWED.has(`${desc.typeName}.${f.name}`) &&
        (f.fieldKind === "message" || (f.fieldKind === "scalar" && f.scalar === ScalarType.STRING)),
    ),
    nested,
  };
  // Kept before the nested plans are made: a type may reach itself.
  plans.set(desc, plan);
  for (const field of required) {
    if (field.message !== undefined && field.fieldKind !== "map") nested.push({ field, plan: planOf(field.message) });
  }
  return plan;
}

/** A REQUIRED field that is absent, or a payload that is not set, at `path`. */
export interface Missing {
  /** JSON path of the field ("" for a response without a payload). */
  path: string;
  /** The response's oneof when no member of it is set. */
  oneof?: DescOneof | undefined;
}

/** A message still to check, with its plan and its JSON path from the response (`task.status.`, `tasks[2].`). */
type Visit = [plan: Plan, message: Record<string, unknown>, at: string];

/**
 * What `response` (of type `desc`) lacks: its payload, or else a REQUIRED
 * field, the first found depth first, the payload's before the response's own.
 */
export function missingFromResponse(desc: DescMessage, response: object): Missing | undefined {
  const m = response as Record<string, unknown>;
  // A stack: the messages reached are checked in a loop, not by recursion,
  // each before what it holds, and those in their fields' order.
  // Plans are made once: looked up here, not asked for.
  const pending: Visit[] = [[plans.get(desc) ?? planOf(desc), m, ""]];
  for (const oneof of desc.oneofs) {
    const chosen = m[oneof.localName] as { case: string | undefined; value: unknown };
    if (chosen.case === undefined) return { path: "", oneof };
    for (const f of oneof.fields) {
      if (f.localName === chosen.case && f.message) {
        pending.push([plans.get(f.message) ?? planOf(f.message), chosen.value as Record<string, unknown>, `${f.jsonName}.`]);
      }
    }
  }
  // Indexed loops: this runs for every event of every stream.
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const [plan, message, at] = visit;
    const present = plan.present;
    for (let i = 0; i < present.length; i++) {
      const f = present[i]!;
      const v = message[f.localName];
      if (v === undefined || v === "") return { path: at + f.jsonName };
    }
    // Pushed last to first, so that they are checked first to last.
    const nested = plan.nested;
    for (let n = nested.length - 1; n >= 0; n--) {
      const { field, plan } = nested[n]!;
      const v = message[field.localName];
      if (field.fieldKind === "list") {
        const list = v as Record<string, unknown>[];
        for (let i = list.length - 1; i >= 0; i--) pending.push([plan, list[i]!, `${at}${field.jsonName}[${i}].`]);
      } else if (v !== undefined) {
        pending.push([plan, v as Record<string, unknown>, `${at}${field.jsonName}.`]);
      }
    }
  }
  return undefined;
}

/** `the REQUIRED field "task.id"`, or `one of task, message ("payload")`. */
function describe(m: Missing): string {
  if (m.oneof === undefined) return `the REQUIRED field "${m.path}"`;
  return `its payload: one of ${m.oneof.fields.map((f) => f.jsonName).join(", ")} ("${m.oneof.name}")`;
}

/**
 * Throws a `ProtocolError` naming what is missing when `message` is not a
 * whole response of `method`; returns it otherwise.
 */
export function checkedResponse<T extends object>(method: DescMethod, message: T, init: A2AErrorInit): T {
  const missing = missingFromResponse(method.output, message);
  if (missing !== undefined) {
    const status = init.httpStatus === undefined ? "" : ` (HTTP ${init.httpStatus})`;
    throw new ProtocolError(`the ${method.name} response${status} lacks ${describe(missing)}`, init);
  }
  return message;
}

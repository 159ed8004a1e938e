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
 * Per response (per stream event) this is a few field reads at each level
 * and no allocation unless something is missing; the plan of each message
 * type is worked out once, and looked up once per check.
 */
import { ScalarType, type DescField, type DescMessage, type DescMethod, type DescOneof } from "@bufbuild/protobuf";
import { DESCRIPTIVE_CARD_FIELDS, requiredFields } from "./required.js";
import { ProtocolError, type A2AErrorInit } from "../errors/family.js";

// REQUIRED strings whose empty value the protocol gives a meaning.
const EMPTY_ALLOWED: ReadonlySet<string> = new Set([
  // "Empty on the last page."
  "lf.a2a.v1.ListTasksResponse.next_page_token",
]);

interface Plan {
  /** REQUIRED strings and messages: their zero value means absent. */
  readonly present: readonly DescField[];
  /** REQUIRED fields holding messages (one, or a list), checked in turn. */
  readonly nested: readonly DescField[];
  /** The message's oneofs, each with its members by case name (read when it is a response). */
  readonly oneofs: ReadonlyArray<{ readonly oneof: DescOneof; readonly members: ReadonlyMap<string, DescField> }>;
}

const plans = new WeakMap<DescMessage, Plan>();

function planOf(desc: DescMessage): Plan {
  let plan = plans.get(desc);
  if (plan) return plan;
  // A card (GetExtendedAgentCard's) is held to what discovery holds a
  // card to: the fields that only describe the agent may be missing.
  const card = desc.typeName === "lf.a2a.v1.AgentCard";
  const required = requiredFields(desc).filter((f) => !card || !DESCRIPTIVE_CARD_FIELDS.has(f.jsonName));
  plan = {
    present: required.filter(
      (f) =>
        !EMPTY_ALLOWED.has(`${desc.typeName}.${f.name}`) &&
        (f.fieldKind === "message" || (f.fieldKind === "scalar" && f.scalar === ScalarType.STRING)),
    ),
    nested: required.filter((f) => f.message !== undefined && f.fieldKind !== "map"),
    oneofs: desc.oneofs.map((oneof) => ({ oneof, members: new Map(oneof.fields.map((f) => [f.localName, f])) })),
  };
  plans.set(desc, plan);
  return plan;
}

/** A REQUIRED field that is absent, or a payload that is not set, at `path`. */
export interface Missing {
  /** JSON path of the field ("" for a response without a payload). */
  path: string;
  /** The response's oneof when no member of it is set. */
  oneof?: DescOneof | undefined;
}

const join = (prefix: string, m: Missing): Missing => ({ ...m, path: `${prefix}.${m.path}` });

/** The REQUIRED field missing from `message` (whose type's plan is `plan`) or from what it requires, if any. */
function missingRequired(plan: Plan, message: object): Missing | undefined {
  const m = message as Record<string, unknown>;
  // Indexed loops: this runs for every event of every stream.
  const present = plan.present;
  for (let i = 0; i < present.length; i++) {
    const f = present[i]!;
    const v = m[f.localName];
    if (v === undefined || v === "") return { path: f.jsonName };
  }
  const nested = plan.nested;
  for (let n = 0; n < nested.length; n++) {
    const f = nested[n]!;
    const v = m[f.localName];
    if (f.fieldKind === "list") {
      const list = v as object[];
      for (let i = 0; i < list.length; i++) {
        const p = missingRequired(planOf(f.message!), list[i]!);
        if (p !== undefined) return join(`${f.jsonName}[${i}]`, p);
      }
    } else if (v !== undefined) {
      const p = missingRequired(planOf(f.message!), v as object);
      if (p !== undefined) return join(f.jsonName, p);
    }
  }
  return undefined;
}

/** What `response` (of type `desc`) lacks: its payload, or a REQUIRED field. */
export function missingFromResponse(desc: DescMessage, response: object): Missing | undefined {
  const m = response as Record<string, unknown>;
  const plan = planOf(desc);
  const oneofs = plan.oneofs;
  for (let i = 0; i < oneofs.length; i++) {
    const { oneof, members } = oneofs[i]!;
    const chosen = m[oneof.localName] as { case: string | undefined; value: unknown };
    if (chosen.case === undefined) return { path: "", oneof };
    const field = members.get(chosen.case);
    if (field?.message !== undefined) {
      const p = missingRequired(planOf(field.message), chosen.value as object);
      if (p !== undefined) return join(field.jsonName, p);
    }
  }
  return missingRequired(plan, response);
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

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
 * Per response (per stream event) this is one loop over a flat list of the
 * fields to look at, worked out once per response type: the REQUIRED fields
 * of the messages reached through singular REQUIRED fields are on the list
 * with the names that lead to them, so nothing is allocated unless something
 * is missing (the path is then built). Only a list of messages with fields
 * of their own to check (a page's tasks) calls the loop again, per element.
 */
import { ScalarType, type DescMessage, type DescMethod, type DescOneof, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { messageFromJson, type GeneratedJson } from "./proto-json.js";
import { DESCRIPTIVE_CARD_FIELDS, requiredFields } from "./required.js";
import { ProtocolError, type A2AErrorInit } from "../errors/family.js";

// REQUIRED strings whose empty value the protocol gives a meaning.
const EMPTY_ALLOWED: ReadonlySet<string> = new Set([
  // "Empty on the last page."
  "lf.a2a.v1.ListTasksResponse.next_page_token",
]);

type Fields = Record<string, unknown>;

/** One value to look at: absent when `undefined` or `""`. */
interface Check {
  /** Local names leading from the plan's message to the value's holder (REQUIRED messages: all set). */
  readonly via: readonly string[];
  readonly name: string;
  /** JSON path of the value from the plan's message ("" for a payload). */
  readonly path: string;
  /** A payload's value: the case of the oneof named by `via[0]` it is looked at under. */
  readonly when?: string;
  /** The payload's oneof, when the value is the case chosen. */
  readonly oneof?: DescOneof;
  /** The plan each message of a list is held to (or a message's, of a type reached again), where not on this one. */
  readonly inner?: Plan;
  readonly list?: boolean;
}

/** What to check of a message of one type, in order: each message's values before what they hold. */
type Plan = Check[];

const plans = new WeakMap<DescMessage, Plan>();
/** Response types: their plan begins with their payload's. */
const responsePlans = new WeakMap<DescMessage, Plan>();
/** Plans being made: a type reached again while its plan is made is held to it as a plan of its own. */
const making = new Set<Plan>();

/** The plan of `desc`, made (with those it reaches) when not made yet. */
function planOf(desc: DescMessage): Plan {
  let plan = plans.get(desc);
  if (plan) return plan;
  plans.set(desc, (plan = []));
  making.add(plan);
  // A card (GetExtendedAgentCard's) is held to what discovery holds a
  // card to: the fields that only describe the agent may be missing.
  const card = desc.typeName === "lf.a2a.v1.AgentCard";
  const required = requiredFields(desc).filter((f) => !card || !DESCRIPTIVE_CARD_FIELDS.has(f.jsonName));
  for (const f of required) {
    const absentIsZero = f.fieldKind === "message" || (f.fieldKind === "scalar" && f.scalar === ScalarType.STRING);
    if (absentIsZero && !EMPTY_ALLOWED.has(`${desc.typeName}.${f.name}`)) plan.push({ via: [], name: f.localName, path: f.jsonName });
  }
  for (const f of required) {
    if (f.message === undefined || f.fieldKind === "map") continue;
    const inner = planOf(f.message);
    const again = making.has(inner);
    const list = f.fieldKind === "list";
    if (list || again) {
      if (again || inner.length > 0) plan.push({ via: [], name: f.localName, path: f.jsonName, inner, list });
    } else {
      for (const c of inner) plan.push({ ...c, via: [f.localName, ...c.via], path: `${f.jsonName}.${c.path}` });
    }
  }
  making.delete(plan);
  return plan;
}

/**
 * The plan of a response type: each oneof set, then the chosen payload's
 * values (the payload's before the response's own), then its own.
 */
function responsePlanOf(desc: DescMessage): Plan {
  let plan = responsePlans.get(desc);
  if (plan) return plan;
  plan = desc.oneofs.map((oneof) => ({ via: [oneof.localName], name: "case", path: "", oneof }));
  for (const oneof of desc.oneofs) {
    for (const f of oneof.fields) {
      for (const c of f.message ? planOf(f.message) : []) {
        plan.push({ ...c, when: f.localName, via: [oneof.localName, "value", ...c.via], path: `${f.jsonName}.${c.path}` });
      }
    }
  }
  plan.push(...planOf(desc));
  responsePlans.set(desc, plan);
  return plan;
}

/** A REQUIRED field that is absent, or a payload that is not set, at `path`. */
export interface Missing {
  /** JSON path of the field ("" for a response without a payload). */
  path: string;
  /** The response's oneof when no member of it is set. */
  oneof?: DescOneof | undefined;
}

/** The first value `plan` finds absent in `message`. */
function missingIn(plan: Plan, message: Fields): Missing | undefined {
  // Indexed loops and no allocation: this runs for every event of every stream.
  for (let i = 0; i < plan.length; i++) {
    const c = plan[i]!;
    const via = c.via;
    if (c.when !== undefined && (message[via[0]!] as { case: unknown }).case !== c.when) continue;
    let holder = message;
    for (let d = 0; d < via.length; d++) holder = holder[via[d]!] as Fields;
    const v = holder[c.name];
    if (c.inner === undefined) {
      if (v === undefined || v === "") return { path: c.path, oneof: c.oneof };
    } else if (v !== undefined) {
      const list = (c.list ? v : [v]) as Fields[];
      for (let k = 0; k < list.length; k++) {
        const m = missingIn(c.inner, list[k]!);
        if (m !== undefined) return { path: `${c.path}${c.list ? `[${k}]` : ""}.${m.path}` };
      }
    }
  }
  return undefined;
}

/**
 * What `response` (of type `desc`) lacks: its payload, or else a REQUIRED
 * field, the first found depth first, the payload's before the response's own.
 */
export function missingFromResponse(desc: DescMessage, response: object): Missing | undefined {
  return missingIn(responsePlans.get(desc) ?? responsePlanOf(desc), response as Fields);
}

/** `the REQUIRED field "task.id"`, or `one of task, message ("payload")`. */
function describe(m: Missing): string {
  if (m.oneof === undefined) return `the REQUIRED field "${m.path}"`;
  return `its payload: one of ${m.oneof.fields.map((f) => f.jsonName).join(", ")} ("${m.oneof.name}")`;
}

/**
 * The whole response of `method` that `json` describes: read by the
 * method's generated reader where there is one, which gives up on any
 * REQUIRED value absent (protoc-gen-json-readers), so that what it returns
 * needs no check; else read by ProtoJSON and checked (`checkedResponse`).
 * Skipping the check where the reader read saves about a tenth of the CPU
 * of a stream event.
 */
export function responseFromJson<O extends DescMessage>(
  method: DescMethod & { readonly output: O },
  json: JsonValue,
  readers: GeneratedJson["readers"] | undefined,
  init: A2AErrorInit,
): MessageShape<O> {
  const read = readers?.[method.output.typeName]?.(json) as MessageShape<O> | undefined;
  if (read !== undefined) return read;
  const message = messageFromJson(method.output, json);
  // As checkedResponse, without a call more on the path of every response a reader did not read.
  const missing = missingIn(responsePlans.get(method.output) ?? responsePlanOf(method.output), message as Fields);
  if (missing !== undefined) throw incomplete(method, missing, init);
  return message;
}

/**
 * Throws a `ProtocolError` naming what is missing when `message` is not a
 * whole response of `method`; returns it otherwise.
 */
export function checkedResponse<T extends object>(method: DescMethod, message: T, init: A2AErrorInit): T {
  const missing = missingIn(responsePlans.get(method.output) ?? responsePlanOf(method.output), message as Fields);
  if (missing !== undefined) throw incomplete(method, missing, init);
  return message;
}

/** The error for a response of `method` that lacks what `missing` names. */
function incomplete(method: DescMethod, missing: Missing, init: A2AErrorInit): ProtocolError {
  const status = init.httpStatus === undefined ? "" : ` (HTTP ${init.httpStatus})`;
  return new ProtocolError(`the ${method.name} response${status} lacks ${describe(missing)}`, init);
}

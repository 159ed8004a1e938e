/**
 * Results and events as the spec's JSON (ProtoJSON) and back, and the
 * ProtoJSON names of the enums, so that an app prints, stores or sends
 * them without importing `@bufbuild/protobuf` itself. The generated
 * objects do not survive `JSON.stringify` as they are: timestamps are
 * BigInt, oneofs are `{ case, value }`, enums are numbers.
 *
 * Nothing here runs until called, so an app that never serializes bundles
 * none of it.
 */
import { createRegistry, type DescMessage, type JsonValue, type Message, type MessageShape, type Registry } from "@bufbuild/protobuf";
import { file_lf_a2a_v1_a2a, RoleSchema, TaskStateSchema, type Role, type TaskState } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { InvalidParamsError } from "../errors/family.js";
import { failedField as where, messageFromJson, protoJsonOf, unreadablePath } from "./proto-json.js";

// Every message type of the A2A schema, by full name; built on first use.
let registry: Registry | undefined;

function schemaOf(typeName: string): DescMessage | undefined {
  registry ??= createRegistry(file_lf_a2a_v1_a2a);
  return registry.getMessage(typeName);
}

/**
 * Any A2A result or event (a `Task`, `Message`, `StreamResponse`,
 * `AgentCard`, ... any message of the A2A schema) as its ProtoJSON: the
 * JSON the spec shows, ready for `JSON.stringify`. Its schema is found by
 * its `$typeName`. Enums are written by name (`"TASK_STATE_COMPLETED"`,
 * `"ROLE_AGENT"`), timestamps as RFC 3339 strings, bytes as base64,
 * fields at their default value are left out.
 *
 * @throws InvalidParamsError when `value` is not a message of the A2A schema.
 * @example
 * ```ts
 * import { connect, toProtoJson } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * const task = await client.getTask({ id: "task-123" });
 * console.log(JSON.stringify(toProtoJson(task), null, 2)); // "state": "TASK_STATE_COMPLETED", ...
 * ```
 * @category Messages and results
 */
export function toProtoJson(value: Message): JsonValue {
  const typeName: unknown = (value as { $typeName?: unknown } | null | undefined)?.$typeName;
  const schema = typeof typeName === "string" ? schemaOf(typeName) : undefined;
  if (schema === undefined) {
    const what = typeof typeName === "string" ? `its $typeName "${typeName.slice(0, 100)}"` : "it has no $typeName";
    throw new InvalidParamsError(`toProtoJson: not a message of the A2A schema (${what})`);
  }
  try {
    return protoJsonOf(schema, value);
  } catch (e) {
    throw new InvalidParamsError(`toProtoJson: ${schema.typeName} cannot be written as ProtoJSON (${where(e)})`);
  }
}

/**
 * The message of type `schema` that `json` (ProtoJSON, e.g. from
 * `JSON.parse` or from `toProtoJson`) describes: the inverse of
 * `toProtoJson`. Fields it does not know are ignored, as the client does
 * with servers' answers.
 *
 * @throws InvalidParamsError naming the type and the field when `json` does not describe one.
 * @example
 * ```ts
 * import { fromProtoJson, toProtoJson, TaskSchema, TaskState } from "a2a-connect";
 *
 * const saved = JSON.stringify({ id: "task-123", contextId: "ctx-1", status: { state: "TASK_STATE_WORKING" } });
 * const task = fromProtoJson(TaskSchema, JSON.parse(saved));
 * console.log(task.status?.state === TaskState.WORKING, toProtoJson(task));
 * ```
 * @category Messages and results
 */
export function fromProtoJson<S extends DescMessage>(schema: S, json: JsonValue): MessageShape<S> {
  try {
    return messageFromJson(schema, json);
  } catch (e) {
    // The field's path where reading stopped (status.timestamp), else the type; never the value.
    const at = unreadablePath(e);
    throw new InvalidParamsError(`fromProtoJson: not a ${schema.typeName} (${at === undefined ? where(e) : `at ${at}`})`);
  }
}

/**
 * The ProtoJSON name of a task state (`"TASK_STATE_COMPLETED"`), as
 * `toProtoJson` writes it; a number the schema does not know is returned
 * as its digits, as ProtoJSON writes it too.
 * @category Messages and results
 */
export function taskStateName(state: TaskState): string {
  return TaskStateSchema.value[state]?.name ?? String(state);
}

/** The ProtoJSON name of a role (`"ROLE_USER"`, `"ROLE_AGENT"`); an unknown number as its digits. @category Messages and results */
export function roleName(role: Role): string {
  return RoleSchema.value[role]?.name ?? String(role);
}

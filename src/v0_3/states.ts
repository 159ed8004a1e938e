/**
 * The 0.3 task states and message roles, each in one table: a row per 0.3
 * value, with its 0.3 JSON spelling (JSON-RPC 0.3) and its 1.0 value. The
 * proto translation (gRPC and HTTP+JSON 0.3) reads the enum columns, the
 * JSON-RPC 0.3 shapes the JSON column; both therefore agree on every value.
 *
 * The tables are keyed by the 0.3 enum and checked against it by the
 * compiler, so a state added to the 0.3 proto fails compilation until it has
 * a row. Values a newer peer sends that no row knows read as UNSPECIFIED.
 */
import * as V03 from "../../gen/a2a/v1/a2a_pb.js";
import * as V1 from "../../gen/lf/a2a/v1/a2a_pb.js";

/** One 0.3 value: how 0.3 JSON spells it, and the 1.0 value it means. */
interface Row<V> {
  /** The 0.3 JSON spelling; undefined where 0.3 JSON has none. */
  readonly json: string | undefined;
  /** The 1.0 value. */
  readonly v1: V;
}

const TASK_STATES = {
  [V03.TaskState.UNSPECIFIED]: { json: "unknown", v1: V1.TaskState.UNSPECIFIED },
  [V03.TaskState.SUBMITTED]: { json: "submitted", v1: V1.TaskState.SUBMITTED },
  [V03.TaskState.WORKING]: { json: "working", v1: V1.TaskState.WORKING },
  [V03.TaskState.COMPLETED]: { json: "completed", v1: V1.TaskState.COMPLETED },
  [V03.TaskState.FAILED]: { json: "failed", v1: V1.TaskState.FAILED },
  // 0.3's proto spells it CANCELLED, its JSON and 1.0 CANCELED.
  [V03.TaskState.CANCELLED]: { json: "canceled", v1: V1.TaskState.CANCELED },
  [V03.TaskState.INPUT_REQUIRED]: { json: "input-required", v1: V1.TaskState.INPUT_REQUIRED },
  [V03.TaskState.REJECTED]: { json: "rejected", v1: V1.TaskState.REJECTED },
  [V03.TaskState.AUTH_REQUIRED]: { json: "auth-required", v1: V1.TaskState.AUTH_REQUIRED },
} as const satisfies Record<V03.TaskState, Row<V1.TaskState>>;

const ROLES = {
  // ROLE_UNSPECIFIED has no 0.3 JSON spelling: such a role is left out.
  [V03.Role.UNSPECIFIED]: { json: undefined, v1: V1.Role.UNSPECIFIED },
  [V03.Role.USER]: { json: "user", v1: V1.Role.USER },
  [V03.Role.AGENT]: { json: "agent", v1: V1.Role.AGENT },
} as const satisfies Record<V03.Role, Row<V1.Role>>;

const taskStateRows: readonly Row<V1.TaskState>[] = Object.values(TASK_STATES);
const roleRows: readonly Row<V1.Role>[] = Object.values(ROLES);

/** 0.3 -> 1.0 task states. */
export function taskStateFromV03(state: V03.TaskState): V1.TaskState {
  return (TASK_STATES as Partial<Record<number, Row<V1.TaskState>>>)[state]?.v1 ?? V1.TaskState.UNSPECIFIED;
}

/** 0.3 -> 1.0 message roles. */
export function roleFromV03(role: V03.Role): V1.Role {
  return (ROLES as Partial<Record<number, Row<V1.Role>>>)[role]?.v1 ?? V1.Role.UNSPECIFIED;
}

const ROLE_TO_V03 = new Map<V1.Role, V03.Role>(Object.entries(ROLES).map(([v03, row]) => [row.v1, Number(v03) as V03.Role]));

/** 1.0 -> 0.3 message roles. */
export function roleToV03(role: V1.Role): V03.Role {
  return ROLE_TO_V03.get(role) ?? V03.Role.UNSPECIFIED;
}

// The JSON-RPC 0.3 side: 0.3 JSON spellings <-> the 1.0 ProtoJSON enum names.

const v1StateName = (s: V1.TaskState) => V1.TaskStateSchema.value[s]!.name;
const v1RoleName = (r: V1.Role) => V1.RoleSchema.value[r]!.name;

const STATE_NAME_BY_JSON = new Map(taskStateRows.map((row) => [row.json, v1StateName(row.v1)]));
const STATE_NAMES = new Set(taskStateRows.map((row) => v1StateName(row.v1)));
const ROLE_NAME_BY_JSON = new Map(roleRows.flatMap((row) => (row.json === undefined ? [] : [[row.json, v1RoleName(row.v1)] as const])));
const ROLE_NAMES = new Set(roleRows.map((row) => v1RoleName(row.v1)));
const ROLE_JSON_BY_NAME = new Map(roleRows.map((row) => [v1RoleName(row.v1), row.json]));

/**
 * A 0.3 JSON task state as the 1.0 ProtoJSON enum name. A 1.0 name is read
 * as itself (some peers send it); anything else as UNSPECIFIED.
 */
export function taskStateNameV1(state: unknown): string {
  if (typeof state !== "string") return "TASK_STATE_UNSPECIFIED";
  return STATE_NAME_BY_JSON.get(state) ?? (STATE_NAMES.has(state) ? state : "TASK_STATE_UNSPECIFIED");
}

/** A 0.3 JSON role (or a 1.0 enum name) as the 1.0 ProtoJSON enum name; anything else as UNSPECIFIED. */
export function roleNameV1(role: unknown): string {
  if (typeof role !== "string") return "ROLE_UNSPECIFIED";
  return ROLE_NAME_BY_JSON.get(role) ?? (ROLE_NAMES.has(role) ? role : "ROLE_UNSPECIFIED");
}

/** A 1.0 ProtoJSON role name as 0.3 JSON spells it; undefined for UNSPECIFIED and unknown names. */
export function roleJsonV03(role: unknown): string | undefined {
  return typeof role === "string" ? ROLE_JSON_BY_NAME.get(role) : undefined;
}

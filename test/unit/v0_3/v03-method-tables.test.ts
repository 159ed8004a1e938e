/**
 * Both 0.3 method tables (the proto one of the gRPC and HTTP+JSON 0.3
 * transports, the JSON-RPC 0.3 one) are held by the compiler to the
 * generated 1.0 service: the `@ts-expect-error` lines below are checked by
 * `npm run typecheck`, which fails if any of them compiles. At run time, the
 * tables and the list of what 0.3 lacks cover every 1.0 method exactly once.
 */
import { describe, expect, it } from "vitest";
import * as V1 from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { V03_CALLS, type JsonRpcV03Call } from "../../../src/bindings/jsonrpc/v0_3-shapes.js";
import { V03_LACKS, type A2AMethodName, type V03MethodTable } from "../../../src/v0_3/methods.js";
import { V03_OPERATIONS, type V03Operation } from "../../../src/v0_3/translate.js";

// A table missing a method 0.3 carries does not compile.
const { deleteTaskPushNotificationConfig: _deleted, ...withoutDelete } = V03_CALLS;
// @ts-expect-error deleteTaskPushNotificationConfig is missing
withoutDelete satisfies V03MethodTable<JsonRpcV03Call>;

// A row for a method 0.3 lacks does not compile either: V03_LACKS says it once.
// biome-ignore format: the directive below covers one line, so the literal stays on it
// @ts-expect-error listTasks is in V03_LACKS
({ ...V03_CALLS, listTasks: { method: "tasks/list", params: () => undefined, result: (r: unknown) => r } }) satisfies V03MethodTable<JsonRpcV03Call>;

// A method added to the 1.0 proto (here "archiveTask") is a compile error until the tables say how 0.3 carries it...
// @ts-expect-error archiveTask has no JSON-RPC 0.3 row
V03_CALLS satisfies V03MethodTable<JsonRpcV03Call, A2AMethodName | "archiveTask">;
// @ts-expect-error archiveTask has no 0.3 proto row
V03_OPERATIONS satisfies { readonly [K in A2AMethodName | "archiveTask"]: V03Operation };

// ...or V03_LACKS says that 0.3 cannot (then neither table may have a row for it).
type Lacking = keyof typeof V03_LACKS | "archiveTask";
V03_CALLS satisfies { readonly [K in Exclude<A2AMethodName | "archiveTask", Lacking>]: JsonRpcV03Call };

describe("the 0.3 method tables", () => {
  const methods = V1.A2AService.methods.map((m) => m.localName).sort();

  it("the JSON-RPC 0.3 table and V03_LACKS together name every 1.0 method once", () => {
    const rows = Object.keys(V03_CALLS);
    const lacking = Object.keys(V03_LACKS);
    expect(rows.filter((k) => lacking.includes(k))).toEqual([]);
    expect([...rows, ...lacking].sort()).toEqual(methods);
    expect(lacking).toEqual(["listTasks"]);
  });

  it("the 0.3 proto table has every 1.0 method, unsupported exactly where V03_LACKS says", () => {
    expect(Object.keys(V03_OPERATIONS).sort()).toEqual(methods);
    const unsupported = Object.entries(V03_OPERATIONS).flatMap(([k, op]) => (op.supported ? [] : [[k, op.reason]]));
    expect(Object.fromEntries(unsupported)).toEqual(V03_LACKS);
  });

  it("the JSON-RPC 0.3 method names are distinct", () => {
    const names = Object.values(V03_CALLS).map((c) => c.method);
    expect(new Set(names).size).toBe(names.length);
  });
});

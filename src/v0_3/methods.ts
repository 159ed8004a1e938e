/**
 * Which 1.0 methods A2A 0.3 carries, as every 0.3 method table sees it. The
 * tables (the 0.3 proto one in translate.ts, the JSON-RPC 0.3 one in
 * bindings/jsonrpc/v0_3-shapes.ts) are declared `satisfies V03MethodTable<...>`,
 * so the compiler holds each to the generated 1.0 service: a method added to
 * the proto is a compile error until every table says how 0.3 carries it, or
 * until `V03_LACKS` says that 0.3 cannot.
 */
import type { DescMethod } from "@bufbuild/protobuf";
import { A2AService } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { UnsupportedOperationError } from "../errors/family.js";

/** The local names of the 1.0 service's methods (`sendMessage`, `getTask`, ...). */
export type A2AMethodName = keyof typeof A2AService.method;

/** The 1.0 methods 0.3 has no counterpart for, each with the reason; no 0.3 table has a row for them. */
export const V03_LACKS = {
  listTasks: "0.3 has no operation to list tasks",
} as const satisfies { readonly [K in A2AMethodName]?: string };

/** The 1.0 methods that 0.3 lacks. */
export type V03Lacking = keyof typeof V03_LACKS;

/**
 * A table with a row for exactly the 1.0 methods 0.3 carries: every method of
 * `Names` (by default the generated service's) but those in `V03_LACKS`.
 */
export type V03MethodTable<Row, Names extends string = A2AMethodName> = { readonly [K in Exclude<Names, V03Lacking>]: Row };

/**
 * The row of `table` for a method of the 1.0 service; undefined for methods
 * 0.3 lacks and for methods of any other service.
 */
export function v03Row<Row>(table: V03MethodTable<Row>, method: DescMethod): Row | undefined {
  if (method.parent.typeName !== A2AService.typeName || !Object.hasOwn(table, method.localName)) return undefined;
  return table[method.localName as Exclude<A2AMethodName, V03Lacking>];
}

/** Why 0.3 cannot carry `method`, for an `UnsupportedOperationError`. */
export function v03LacksReason(method: DescMethod): string {
  return method.parent.typeName === A2AService.typeName && Object.hasOwn(V03_LACKS, method.localName)
    ? V03_LACKS[method.localName as V03Lacking]
    : `0.3 has no method ${method.parent.typeName}.${method.name}`;
}

/** The error for a value 0.3 has no way to express; raised before anything is sent. */
export function cannotExpress(what: string): UnsupportedOperationError {
  return new UnsupportedOperationError(`the agent speaks A2A 0.3, which cannot express ${what}`);
}

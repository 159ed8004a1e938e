/**
 * The well-known types (google.protobuf.*), which ProtoJSON writes in
 * forms of their own (a Timestamp as a string, a Struct as an object)
 * rather than field by field.
 */
import type { DescMessage } from "@bufbuild/protobuf";

/** The package of the well-known types, with its dot: `${WKT}Timestamp`. */
export const WKT = "google.protobuf.";

/** Whether `desc` is a well-known type, whose JSON is not its fields. */
export function isWellKnown(desc: DescMessage): boolean {
  return desc.typeName.startsWith(WKT);
}

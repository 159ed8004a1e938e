// What our ProtoJSON reader and writer (src/protocol/json-read.ts,
// json-write.ts) take on is what the schemas the entries reach use: these
// scalar kinds, field kinds and well-known types. A proto change that adds
// another (an int64, a double, a Duration, an enum list) fails here, before
// the codec refuses it at run time.
import { describe, expect, it } from "vitest";
import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import * as V1 from "../../../gen/lf/a2a/v1/a2a_pb.js";
import * as V03 from "../../../gen/a2a/v1/a2a_pb.js";

function used(files: { messages: DescMessage[] }[]) {
  const scalars = new Set<string>();
  const kinds = new Set<string>();
  const wellKnown = new Set<string>();
  const closedEnums = new Set<string>();
  const seen = new Set<DescMessage>();
  const walk = (m: DescMessage) => {
    if (seen.has(m)) return;
    seen.add(m);
    m.nestedMessages.forEach(walk);
    for (const f of m.fields) {
      kinds.add(f.fieldKind === "list" ? `list of ${f.listKind}` : f.fieldKind === "map" ? `map of ${f.mapKind}` : f.fieldKind);
      if (f.scalar !== undefined) scalars.add(ScalarType[f.scalar]!);
      if (f.fieldKind === "map") scalars.add(`map key ${ScalarType[f.mapKey]}`);
      const e = f.enum;
      if (e !== undefined && !e.open) closedEnums.add(e.typeName);
      const type = f.message ?? e;
      if (type?.typeName.startsWith("google.protobuf.")) wellKnown.add(type.typeName);
      // A well-known type's JSON is its own (json-read.ts reads each by name): its fields are not the schema's.
      if (f.message !== undefined && !f.message.typeName.startsWith("google.protobuf.")) walk(f.message);
    }
  };
  for (const file of files) file.messages.forEach(walk);
  return { scalars: [...scalars].sort(), kinds: [...kinds].sort(), wellKnown: [...wellKnown].sort(), closedEnums: [...closedEnums] };
}

describe("the ProtoJSON codec's reach", () => {
  it("covers every scalar, field kind and well-known type of the A2A 1.0 and 0.3 schemas", () => {
    expect(used([V1.file_lf_a2a_v1_a2a, V03.file_a2a_v1_a2a])).toEqual({
      // json-read.ts and json-write.ts read and write these; 64-bit integers, floats and doubles they refuse.
      scalars: ["BOOL", "BYTES", "INT32", "STRING", "map key STRING"],
      kinds: ["enum", "list of message", "list of scalar", "map of message", "map of scalar", "message", "scalar"],
      // With Value, its ListValue and NullValue; Empty is a method's answer, not a field.
      wellKnown: ["google.protobuf.Struct", "google.protobuf.Timestamp", "google.protobuf.Value"],
      closedEnums: [],
    });
  });

  it("meets Empty only as a method's input or output", () => {
    const types = new Set<string>();
    for (const file of [V1.file_lf_a2a_v1_a2a, V03.file_a2a_v1_a2a]) {
      for (const service of file.services) for (const m of service.methods) types.add(m.input.typeName).add(m.output.typeName);
    }
    expect([...types].filter((t) => t.startsWith("google.protobuf.")).sort()).toEqual(["google.protobuf.Empty"]);
  });
});

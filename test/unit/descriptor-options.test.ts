/**
 * The custom options read from the generated descriptors (routes, REQUIRED
 * fields) are the values protobuf-es's getOption reads, for every method and
 * every field of the A2A schema, without its extension code in the bundle.
 */
import { create, getOption, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { FieldOptionsSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { http } from "../../gen/google/api/annotations_pb.js";
import { FieldBehavior, field_behavior } from "../../gen/google/api/field_behavior_pb.js";
import { A2AService, file_lf_a2a_v1_a2a } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { enumListOption, messageOption } from "../../src/protocol/descriptor-options.js";

function allMessages(messages: readonly DescMessage[]): DescMessage[] {
  return messages.flatMap((m) => [m, ...allMessages(m.nestedMessages)]);
}

describe("descriptor options", () => {
  it("google.api.http of every A2A method is the rule getOption reads", () => {
    const methods = A2AService.methods;
    expect(methods.length).toBeGreaterThan(10);
    for (const m of methods) {
      const rule = messageOption(m, http);
      expect(rule, m.name).toEqual(getOption(m, http));
      expect(rule.pattern.case, m.name).toBeDefined();
    }
  });

  it("google.api.field_behavior of every A2A field is the list getOption reads", () => {
    let required = 0;
    for (const message of allMessages(file_lf_a2a_v1_a2a.messages)) {
      for (const f of message.fields) {
        const behaviors = enumListOption(f, field_behavior);
        expect(behaviors, `${message.typeName}.${f.name}`).toEqual(getOption(f, field_behavior));
        if (behaviors.includes(FieldBehavior.REQUIRED)) required++;
      }
    }
    expect(required).toBeGreaterThan(10);
  });

  it("a repeated enum option written unpacked, or over several occurrences, reads as getOption reads it", () => {
    const data = (write: (w: BinaryWriter) => void) => {
      const w = new BinaryWriter();
      write(w);
      return w.finish();
    };
    const options = create(FieldOptionsSchema);
    options.$unknown = [
      { no: field_behavior.number, wireType: WireType.Varint, data: data((w) => w.int32(FieldBehavior.REQUIRED)) },
      {
        no: field_behavior.number,
        wireType: WireType.LengthDelimited,
        data: data((w) => w.bytes(data((p) => p.int32(FieldBehavior.OUTPUT_ONLY).int32(FieldBehavior.IMMUTABLE)))),
      },
    ];
    const field = { proto: { options } } as unknown as DescField;
    expect(enumListOption(field, field_behavior)).toEqual([FieldBehavior.REQUIRED, FieldBehavior.OUTPUT_ONLY, FieldBehavior.IMMUTABLE]);
    expect(enumListOption(field, field_behavior)).toEqual(getOption(field, field_behavior));
  });
});

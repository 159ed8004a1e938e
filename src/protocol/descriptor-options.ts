/**
 * Custom options of the generated descriptors (`google.api.http`,
 * `google.api.field_behavior`), read from the option message's unknown
 * fields with the binary reader that booting the descriptors already needs.
 * protobuf-es's `getOption` gives the same values but brings its extension
 * machinery (reflection, the binary writer) into every bundle, where it
 * would be used for these two reads alone.
 */
import { create, mergeFromBinary, type DescExtension, type DescField, type DescMethod, type Message } from "@bufbuild/protobuf";
import type { GenExtension } from "@bufbuild/protobuf/codegenv2";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** The occurrences of `option` on `element`'s options, as the descriptor carries them. */
function occurrences(element: DescField | DescMethod, option: DescExtension) {
  return element.proto.options?.$unknown?.filter((f) => f.no === option.number) ?? [];
}

/**
 * A message-typed option, its occurrences merged as the wire format merges
 * them; the message's defaults when the element does not set it.
 */
export function messageOption<V extends Message>(element: DescMethod, option: GenExtension<Message, V>): V {
  const schema = option.message!;
  const value = create(schema) as Message;
  for (const f of occurrences(element, option)) {
    if (f.wireType === WireType.LengthDelimited) mergeFromBinary(schema, value, new BinaryReader(f.data).bytes());
  }
  return value as V;
}

/** A repeated enum option's values, packed or not; empty when the element does not set it. */
export function enumListOption(element: DescField, option: DescExtension): number[] {
  const values: number[] = [];
  for (const f of occurrences(element, option)) {
    const reader = new BinaryReader(f.data);
    if (f.wireType === WireType.Varint) values.push(reader.int32());
    else if (f.wireType === WireType.LengthDelimited) {
      const packed = new BinaryReader(reader.bytes());
      while (packed.pos < packed.len) values.push(packed.int32());
    }
  }
  return values;
}

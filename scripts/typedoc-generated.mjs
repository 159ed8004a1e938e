// TypeDoc plugin: the code in gen/ is written by protoc-gen-es and carries
// the proto's comments, but not on the plumbing it adds to the types (the
// ProtoJSON type of each schema, the `case`/`value` pair of each oneof, the
// fields of each service method). This gives those members a fixed
// description, so the API reference can require every symbol to be
// documented without editing generated files.
import { Comment, Converter, ReflectionKind } from "typedoc";

const GENERATED = /[\\/]gen[\\/]/;

const TEXT = {
  jsonType: "The message's ProtoJSON shape, as a type for `toJson` and `fromJson`; it has no value at run time.",
  case: "Which field of the oneof is set; `undefined` when none is.",
  value: "The value of the field that `case` names.",
  methodKind: "Whether the method is unary or streams its responses.",
  input: "The schema of the method's request.",
  output: "The schema of the method's response.",
};

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    for (const reflection of Object.values(project.reflections)) {
      if (!reflection.kindOf(ReflectionKind.Property) || reflection.hasComment()) continue;
      const text = Object.hasOwn(TEXT, reflection.name) ? TEXT[reflection.name] : undefined;
      const file = project.getSymbolIdFromReflection(reflection)?.fileName ?? "";
      if (text && GENERATED.test(file)) reflection.comment = new Comment([{ kind: "text", text }]);
    }
  });
}

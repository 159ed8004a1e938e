// TypeDoc plugin: the API reference is grouped by what users do (the
// categories and their order are in typedoc.json's categoryOrder). Our own
// exports carry an `@category` tag where they are declared; this fails the
// build when one does not, so a new export cannot fall silently into a
// catch-all list. Files that cannot carry tags get their category here:
// gen/ (written by protoc-gen-es) and connect's interceptor types, which
// a2a-connect re-exports for interceptors of one's own.
import { Comment, CommentTag, Converter, ReflectionKind } from "typedoc";

const GENERATED = /[\\/]gen[\\/]/;
const CONNECT = /[\\/]node_modules[\\/]@connectrpc[\\/]connect[\\/]/;

/** The category of an export declared outside src/, or undefined for our own. */
function categoryOutsideSrc(reflection, file) {
  if (CONNECT.test(file)) return "Interceptors and observability";
  if (!GENERATED.test(file)) return undefined;
  if (reflection.kindOf(ReflectionKind.Variable)) return "Protocol schemas";
  if (reflection.kindOf(ReflectionKind.TypeAlias) && reflection.name.endsWith("Json")) return "ProtoJSON shapes";
  return "Protocol types";
}

/** Whether the reflection, or one of its signatures, has an `@category` tag. */
function hasCategory(reflection) {
  const comments = [reflection.comment, ...(reflection.signatures ?? []).map((s) => s.comment)];
  return comments.some((c) => c?.blockTags.some((t) => t.tag === "@category"));
}

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    // With one entry point the exports are the project's children; with several, its modules'.
    const exports = (project.children ?? []).flatMap((c) => (c.kindOf(ReflectionKind.Module) ? (c.children ?? []) : [c]));
    for (const reflection of exports) {
      if (reflection.kindOf(ReflectionKind.Reference) || hasCategory(reflection)) continue;
      const file = project.getSymbolIdFromReflection(reflection)?.fileName ?? "";
      const category = categoryOutsideSrc(reflection, file);
      if (category === undefined) {
        app.logger.error(
          `${reflection.getFriendlyFullName()} (${file}) has no @category tag: add one of typedoc.json's categoryOrder to its doc comment`,
        );
        continue;
      }
      reflection.comment ??= new Comment([]);
      reflection.comment.blockTags.push(new CommentTag("@category", [{ kind: "text", text: category }]));
    }
  });
}

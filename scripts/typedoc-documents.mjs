// TypeDoc plugin: the guides (typedoc.json's projectDocuments) are named in
// the site by their title, the first `# ` heading, as GitHub shows the same
// files, rather than by their path (`docs/discovery-and-trust`). Their order
// is the order typedoc.json lists them in. Front matter would name them too,
// but GitHub shows it as a table at the top of each guide.
import { Converter, ReflectionKind } from "typedoc";

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const doc of context.project.getReflectionsByKind(ReflectionKind.Document)) {
      const text = doc.content.map((part) => part.text).join("");
      const title = /^# (.+)$/m.exec(text)?.[1]?.trim();
      if (title === undefined) app.logger.error(`${doc.name}: a guide opens with a "# " title, and this one has none`);
      else doc.name = title;
    }
  });
}

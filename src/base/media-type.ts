/** Reading `Content-Type` values. */
/** The media type of a `Content-Type`, without parameters, in lower case (media types are read in any case); "" for none. */
export function mediaTypeOf(type: string | null): string {
  // A client reads the same value over and over (each answer's, two or three times): taken apart once.
  if (type !== lastType) {
    lastMedia = (type ?? "").split(";")[0]!.trim().toLowerCase();
    lastType = type;
  }
  return lastMedia;
}

/** The value `mediaTypeOf` read last, and its media type. */
let lastType: string | null = null;
let lastMedia = "";

/** application/json or any `+json` media type, with or without parameters. */
export function isJsonContentType(type: string | null): boolean {
  const t = mediaTypeOf(type);
  return t === "application/json" || t.endsWith("+json");
}

/** Reading `Content-Type` values. */
/** The media type of a `Content-Type`, without parameters, in lower case (media types are read in any case); "" for none. */
export function mediaTypeOf(type: string | null): string {
  return (type ?? "").split(";")[0]!.trim().toLowerCase();
}

/** application/json or any `+json` media type, with or without parameters. */
export function isJsonContentType(type: string | null): boolean {
  const t = mediaTypeOf(type);
  return t === "application/json" || t.endsWith("+json");
}

/** URLs as errors and logs may show them: without user info, query or fragment. */
/** A URL as error messages name it: origin and path only, since its query and user info may carry credentials (an API key). */
export function safeUrl(url: string): string {
  const u = parsedUrl(url);
  return u ? maskedHref(u) : "(not a URL)";
}

/**
 * An interface's URL as `safeUrl` shows one, also when it is not http(s)
 * (a gRPC interface's `host:port`, which would parse as a scheme and a
 * path, or `grpc://`): without user info, query or fragment.
 */
export function safeInterfaceUrl(url: string): string {
  if (/^https?:\/\//i.test(url)) return safeUrl(url);
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i, "$1").replace(/[?#][\s\S]*$/, "");
}

/** What `safeUrl` keeps of a parsed URL: origin and path, without user info, query or fragment. */
export function maskedHref(u: URL): string {
  return `${u.origin}${u.pathname}`;
}

/** `url` parsed, or undefined when it is not an absolute URL. */
export function parsedUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" };

/**
 * Where a connection to `url` goes, as `host:port`, the port named even
 * when it is the scheme's default (`agent.example:443`): what a refused,
 * reset or unresolvable connection is reported with. Never the user info.
 */
export function hostPort(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || DEFAULT_PORTS[u.protocol] || "?"}`;
  } catch {
    return "(not a URL)";
  }
}

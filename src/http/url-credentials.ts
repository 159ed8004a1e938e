/**
 * A URL's user info, on the requests made with fetch: fetch refuses a URL
 * that carries credentials, with a TypeError that would read as a network
 * failure (transient, retried, and in a page a possible CORS refusal). The
 * user info is sent as node:http sends it (node-client.ts) instead.
 */
import { base64 } from "../base/base64.js";
import { parsedUrl } from "../base/urls.js";

/**
 * The URL without its user info, and the headers with that user info as
 * `Authorization: Basic` credentials unless they have an Authorization
 * already; both as given when the URL has none.
 */
export function withoutUserInfo(url: string, header: Headers): { url: string; header: Headers } {
  // Parsed only when it may have some: most URLs have no "@".
  const u = url.includes("@") ? parsedUrl(url) : undefined;
  if (u === undefined || (u.username === "" && u.password === "")) return { url, header };
  const credentials = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  u.username = u.password = "";
  if (header.has("Authorization")) return { url: u.href, header };
  const withBasic = new Headers(header);
  withBasic.set("Authorization", `Basic ${base64(new TextEncoder().encode(credentials))}`);
  return { url: u.href, header: withBasic };
}

/**
 * What an `a2a` target names: an agent's URL, a bare `host:port`, or an
 * Agent Card in a local file. Read once, the same way, by the command-line
 * checks and by the commands.
 */
import { fileURLToPath } from "node:url";
import { isLoopbackUrl } from "../trust/loopback.js";
import { UsageError } from "./usage-error.js";

/** Where a command finds the agent's card. */
export type Target =
  | {
      /** The agent's base URL or its card's URL. */
      kind: "url";
      /** Absolute http(s) URL. */
      url: string;
    }
  | {
      /** An Agent Card in a local file. */
      kind: "file";
      /** The file's path, as given (or decoded from a `file:` URL). */
      path: string;
    };

// `host:port` and `[v6]:port`, optionally with a path; no scheme.
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})(\/.*)?$/;

/**
 * Reads a target argument (`command` names the command for the usage
 * error). `host:port` becomes `http://` on a loopback host and `https://`
 * otherwise, as plain http off this machine would send credentials in clear.
 * A `file:` URL, or a path (starting with `.`, `/` or a backslash, or ending in
 * `.json`) is a card file.
 */
export function parseTarget(arg: string, command: string): Target {
  if (/^file:/i.test(arg)) {
    try {
      return { kind: "file", path: fileURLToPath(arg) };
    } catch {
      throw new UsageError(`<url>: ${quoted(arg)} is not a valid file: URL (file:///path/card.json)`, command);
    }
  }
  const hostPort = HOST_PORT.exec(arg);
  if (hostPort && !arg.includes("://")) {
    const port = Number(hostPort[2]);
    if (port < 1 || port > 65535) throw new UsageError(`<url>: port ${hostPort[2]} is not in 1..65535`, command);
    const http = `http://${hostPort[1]}:${port}${hostPort[3] ?? ""}`;
    return { kind: "url", url: isLoopbackUrl(new URL(http)) ? http : `https${http.slice(4)}` };
  }
  if (arg.includes("://")) {
    let parsed: URL;
    try {
      parsed = new URL(arg);
    } catch {
      throw new UsageError(`<url> must be an absolute http(s) URL, e.g. https://agent.example.com`, command);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new UsageError(`<url> must be an http or https URL`, command);
    return { kind: "url", url: arg };
  }
  if (/^[./\\]/.test(arg) || /\.json$/i.test(arg)) return { kind: "file", path: arg };
  throw new UsageError(
    `<url> must be an absolute http(s) URL (https://agent.example.com), host:port, or a card file (./card.json)`,
    command,
  );
}

/** The argument, shortened, for an error message. */
function quoted(arg: string): string {
  return JSON.stringify(arg.length > 80 ? `${arg.slice(0, 79)}…` : arg);
}

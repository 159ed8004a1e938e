/**
 * Where `a2a` sends the credentials typed on its command line (`--token`,
 * `A2A_TOKEN`, `--header`): they go as headers to the interface the card
 * names, which may be another host than the one typed, over plain http. As
 * the library holds `auth` credentials, they go over https, or plain http
 * to this machine, or plain http to the host the user typed as an http URL
 * (they chose it), unless `--auth-over-http`.
 */
import type { Interceptor } from "@connectrpc/connect";
import { AuthenticationError } from "../errors/family.js";
import { isLoopbackUrl } from "../trust/loopback.js";
import { parsedUrl, safeUrl } from "../base/urls.js";

/**
 * The interceptor that fails a call, before anything is sent, to a URL
 * the command-line credentials may not go to; `typed` is the target URL
 * as given (undefined for a card file, which names no host of the user's).
 */
export function commandLineCredentialsGuard(typed: string | undefined): Interceptor {
  const typedHttp = parsedUrl(typed ?? "");
  const allowedHost = typedHttp?.protocol === "http:" ? typedHttp.hostname : undefined;
  return (next) => async (req) => {
    const u = parsedUrl(req.url);
    if (u?.protocol === "http:" && !isLoopbackUrl(u) && u.hostname !== allowedHost) {
      throw new AuthenticationError(
        `the call was not made: ${safeUrl(req.url)}, named by the card, is plain http to a host other than this machine and the one typed, and --token and --header values are not sent there unencrypted (choose an https interface with --binding, or pass --auth-over-http)`,
      );
    }
    return next(req);
  };
}

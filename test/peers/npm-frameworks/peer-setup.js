// Imported first by every peer, so that it applies before any framework
// module is evaluated (some start work as soon as they load).
//
// Console to stderr: the frameworks log (and print start-up banners) through
// console.log/info, which go to stdout, and stdout belongs to the single
// `ready` line the test harness waits for.
//
// fetch() on loopback only: a test peer talks to 127.0.0.1 and nothing else,
// but frameworks phone home by themselves (VoltAgent fetches a model list
// from models.dev when it loads and announcements from GitHub when its server
// starts). Such a call fails at once here, which they already treat as being
// offline. Push notifications to 127.0.0.1 still go out.

import { Console } from "node:console";

globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!LOOPBACK.has(url.hostname)) {
    console.error(`fetch to ${url.origin} refused: this peer stays on loopback`);
    throw new TypeError(`fetch to ${url.origin} refused (loopback only)`);
  }
  return realFetch(input, init);
};

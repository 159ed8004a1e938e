/** The interop suite (suite.ts) against @a2a-js/sdk 0.3.14's server, the release most npm frameworks embed (test/support/sdk-peers.ts). */
import { TYPESCRIPT_03_PEER } from "../support/sdk-peers.js";
import { interopSuite } from "./suite.js";

interopSuite(TYPESCRIPT_03_PEER);

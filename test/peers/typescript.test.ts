/** The interop suite (suite.ts) against the official TypeScript SDK's server (test/support/sdk-peers.ts). */
import { TYPESCRIPT_PEER } from "../support/sdk-peers.js";
import { interopSuite } from "./suite.js";

interopSuite(TYPESCRIPT_PEER);

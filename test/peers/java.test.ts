/** The interop suite (suite.ts) against the official Java SDK's server (test/support/sdk-peers.ts). */
import { JAVA_PEER } from "../support/sdk-peers.js";
import { interopSuite } from "./suite.js";

interopSuite(JAVA_PEER);

/** The interop suite (suite.ts) against the official Java SDK's A2A 0.3 reference servers (test/support/sdk-peers.ts). */
import { JAVA_03_PEER } from "../support/sdk-peers.js";
import { interopSuite } from "./suite.js";

interopSuite(JAVA_03_PEER);

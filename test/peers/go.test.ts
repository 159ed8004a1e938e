/** The interop suite (suite.ts) against the official Go SDK's server (test/support/sdk-peers.ts). */
import { GO_PEER } from "../support/sdk-peers.js";
import { interopSuite } from "./suite.js";

interopSuite(GO_PEER);

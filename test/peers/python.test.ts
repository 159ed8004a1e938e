/** The interop suite (suite.ts) against the official Python SDK's server (test/support/sdk-peers.ts). */
import { PYTHON_PEER } from "../support/sdk-peers.js";
import { interopSuite } from "./suite.js";

interopSuite(PYTHON_PEER);

/** The framework suite (frameworks.ts) against Mastra's A2A routes (test/support/sdk-peers.ts). */
import { MASTRA_PEER } from "../support/sdk-peers.js";
import { frameworkSuite } from "./frameworks.js";

frameworkSuite(MASTRA_PEER, {});

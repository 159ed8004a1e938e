/** The framework suite (frameworks.ts) against Google ADK's A2A server (test/support/sdk-peers.ts). */
import { ADK_PEER } from "../support/sdk-peers.js";
import { frameworkSuite } from "./frameworks.js";

frameworkSuite(ADK_PEER, {
  message: "an ADK agent's answer is always a task",
});

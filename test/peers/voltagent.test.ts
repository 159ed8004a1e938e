/** The framework suite (frameworks.ts) against VoltAgent's A2A server (test/support/sdk-peers.ts). */
import { VOLTAGENT_PEER } from "../support/sdk-peers.js";
import { frameworkSuite } from "./frameworks.js";

frameworkSuite(VOLTAGENT_PEER, {
  message: "a VoltAgent agent's answer is always a task",
  "input-required": "a model's run in VoltAgent ends the task; no state asks for input",
  subscribe: "VoltAgent has no tasks/resubscribe (MethodNotFoundError)",
});

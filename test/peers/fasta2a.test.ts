/** The framework suite (frameworks.ts) against FastA2A, Pydantic AI's A2A server (test/support/sdk-peers.ts). */
import { FASTA2A_PEER } from "../support/sdk-peers.js";
import { frameworkSuite } from "./frameworks.js";

frameworkSuite(FASTA2A_PEER, {
  message: "a FastA2A agent's answer is always a task",
  "input-required": "a model's run in FastA2A ends the task; no state asks for input",
  cancel: "FastA2A's worker does not cancel a running task: CancelTask waits for it to end and returns it",
  subscribe: "with no cancel, a task is followed to the end its run reaches",
  "list-tasks": "FastA2A answers ListTasks with UnsupportedOperation",
});

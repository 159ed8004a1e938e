/**
 * a2a-connect/testing: a scriptable A2A 1.0 agent for the tests of code
 * built on this client. Each message runs a script of steps: answers (a
 * message, a task's states, streamed artifacts, input-required turns, a
 * task that runs until cancelled) and faults (waits, silence, cut
 * connections, HTTP statuses, A2A errors, bytes that are not A2A). The
 * agent keeps a real task store (GetTask, ListTasks, CancelTask,
 * SubscribeToTask with `Last-Event-ID`), records what it received, and runs
 * in memory in any runtime or on a loopback server in Node, on JSON-RPC,
 * HTTP+JSON and gRPC (HTTP/2 on loopback, gRPC-web). Not part of the
 * browser core: nothing else in the package imports it.
 *
 * @module a2a-connect/testing
 */
export { createTestAgent, type TestAgent, type TestAgentOptions, type ScriptChoice, type InMemoryConnectOptions } from "./testing/agent.js";
export {
  steps,
  type Step,
  type Script,
  type StepContent,
  type ArtifactOptions,
  type ReplyStep,
  type StatusStep,
  type ArtifactStep,
  type UntilCancelledStep,
  type UntilSubscribedStep,
  type WaitStep,
  type HangStep,
  type DropStep,
  type HttpStatusStep,
  type ErrorStep,
  type RawStep,
  type MalformedStep,
  type OnceStep,
} from "./testing/steps.js";
export { TEST_ERROR_KINDS, type TestErrorKind } from "./testing/errors.js";
export type { FaultStep, OperationFaults, TestOperation } from "./testing/operation-faults.js";
export type { TestBinding } from "./testing/card.js";
export type { TestVersion } from "./testing/v0_3-card.js";
export type { LoopbackServer } from "./testing/loopback.js";
export { MASK, type ReceivedRequest } from "./testing/request-log.js";
export type { TestPushOptions, PushDelivery } from "./testing/push.js";
export type { TestCardSigning, CardKeySet } from "./testing/sign.js";

/**
 * What each A2A method does, as the call rules ask it: whether its request
 * carries a message to send, and whether it only reads. One row per method
 * of the generated service, which the compiler holds to the service: a
 * method added to the proto does not compile until it has its row.
 *
 * Whether a method streams is not a trait here: the generated method says
 * so itself (`methodKind`), and a second answer could disagree with it.
 * A2A 0.3's methods are reached through their 1.0 counterparts (the 0.3
 * transports take 1.0 methods), so they have no rows of their own.
 */
import type { DescMethod } from "@bufbuild/protobuf";
import { A2AService } from "../../gen/lf/a2a/v1/a2a_pb.js";

/** What a method does, for the rules of a call. */
export interface MethodTraits {
  /**
   * Its request carries a message to send: the message gets an id once,
   * so that a message sent again is recognisably the same one.
   */
  readonly sendsMessage: boolean;
  /**
   * It changes nothing on the agent, whatever its outcome: running it twice
   * is running it once. Every other method is a write, CancelTask
   * included: a second cancel after a first that went through answers
   * TaskNotCancelableError, and so reports a success as a failure.
   */
  readonly readsOnly: boolean;
}

const SENDS: MethodTraits = { sendsMessage: true, readsOnly: false };
const WRITES: MethodTraits = { sendsMessage: false, readsOnly: false };
const READS: MethodTraits = { sendsMessage: false, readsOnly: true };

/** The traits of every method of the 1.0 service, by its local name. */
export const METHOD_TRAITS = {
  sendMessage: SENDS,
  sendStreamingMessage: SENDS,
  getTask: READS,
  listTasks: READS,
  cancelTask: WRITES,
  subscribeToTask: READS,
  createTaskPushNotificationConfig: WRITES,
  getTaskPushNotificationConfig: READS,
  listTaskPushNotificationConfigs: READS,
  getExtendedAgentCard: READS,
  deleteTaskPushNotificationConfig: WRITES,
} as const satisfies Record<keyof typeof A2AService.method, MethodTraits>;

/**
 * The traits of `method`; a method of another service (a transport is a
 * connect Transport, which any method may be given to) is a write that
 * sends no message, the cautious answer.
 */
export function traitsOf(method: DescMethod): MethodTraits {
  return method.parent === A2AService ? METHOD_TRAITS[method.localName as keyof typeof METHOD_TRAITS] : WRITES;
}

/**
 * What a session's client does with the capabilities its card declares
 * (spec 3.3.4: an operation the card does not declare is refused by the
 * agent, and clients SHOULD check the card first): the push config
 * operations fail before any request without `pushNotifications`; without
 * `streaming`, SendStreamingMessage falls back to SendMessage and
 * SubscribeToTask fails before any request. Absent counts as false, as the
 * spec says.
 */
import type { AgentCard, StreamResponse } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { PushNotificationNotSupportedError, UnsupportedOperationError } from "../errors/family.js";
import type { A2AClient, StreamCallOptions } from "./client.js";
import { failing } from "../base/iterables.js";

const PUSH_CONFIG_METHODS = [
  "createTaskPushNotificationConfig",
  "getTaskPushNotificationConfig",
  "listTaskPushNotificationConfigs",
  "deleteTaskPushNotificationConfig",
] as const;

/**
 * The client as it is, but for the operations that need a capability, which
 * first check the card in force (`card()`, read at each call: the extended
 * card may declare more). The view delegates everything else to `client`
 * (it is an `A2AClient` whose prototype is that client), so failover and
 * bindings are shared.
 */
export function withCapabilityChecks(client: A2AClient, card: () => AgentCard): A2AClient {
  const view = Object.create(client) as A2AClient;
  for (const name of PUSH_CONFIG_METHODS) {
    const call = client[name] as (...args: unknown[]) => Promise<unknown>;
    define(view, name, (...args: unknown[]): Promise<unknown> => {
      if (card().capabilities?.pushNotifications !== true) {
        return Promise.reject(
          new PushNotificationNotSupportedError(undeclared("push notifications (capabilities.pushNotifications)"), {
            reason: "PUSH_NOTIFICATION_NOT_SUPPORTED",
          }),
        );
      }
      return call.apply(client, args);
    });
  }
  const streams = () => card().capabilities?.streaming === true;
  define(view, "sendStreamingMessage", (request: Parameters<A2AClient["sendStreamingMessage"]>[0], options?: StreamCallOptions) =>
    streams() ? client.sendStreamingMessage(request, options) : sentAsEvents(client, request, options),
  );
  define(view, "subscribeToTask", (request: Parameters<A2AClient["subscribeToTask"]>[0], options?: StreamCallOptions) =>
    streams()
      ? client.subscribeToTask(request, options)
      : failing(new UnsupportedOperationError(undeclared("streaming (capabilities.streaming), which SubscribeToTask needs"))),
  );
  return view;
}

function undeclared(capability: string): string {
  return `the agent's card does not declare ${capability}`;
}

function define(view: A2AClient, name: keyof A2AClient, value: (...args: never[]) => unknown): void {
  Object.defineProperty(view, name, { value });
}

/**
 * SendMessage, for an agent that does not stream, with its result as the
 * one event of a stream: a task as a `task` event, a direct reply as a
 * `message` event. Sent when the stream is first read, as a stream is.
 */
async function* sentAsEvents(
  client: A2AClient,
  request: Parameters<A2AClient["sendMessage"]>[0],
  options: StreamCallOptions = {},
): AsyncGenerator<StreamResponse> {
  // The call options of a stream are those of a call, and `resume`, which SendMessage has no use for.
  const res = await client.sendMessage(request, options);
  if (res.payload.case === undefined) return;
  yield { $typeName: "lf.a2a.v1.StreamResponse", payload: res.payload };
}

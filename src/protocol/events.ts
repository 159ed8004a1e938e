/** What a stream event or a send result says about the task it belongs to. */
import type { SendMessageResponse, StreamResponse } from "../../gen/lf/a2a/v1/a2a_pb.js";

/**
 * The id of the task an event (or a `sendMessage` result) belongs to: a
 * task's `id`, a status or artifact update's `taskId`, a message's `taskId`.
 * Undefined when it names none: a message outside any task (a direct reply),
 * an empty id (proto3's "not set"), an empty or unknown payload.
 *
 * @example
 * ```ts
 * import { connect, taskIdOf, userMessage } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * for await (const event of client.sendStreamingMessage({ message: userMessage("hi") })) {
 *   console.log(taskIdOf(event), event.payload.case);
 * }
 * ```
 * @category Streams and tracking
 */
export function taskIdOf(event: StreamResponse | SendMessageResponse | undefined): string | undefined {
  const p = event?.payload;
  switch (p?.case) {
    case "task":
      return p.value?.id || undefined;
    case "message":
    case "statusUpdate":
    case "artifactUpdate":
      return p.value?.taskId || undefined;
    default:
      return undefined;
  }
}

import type { DescMessage, DescMethodUnary, MessageShape } from "@bufbuild/protobuf";
import type { UnaryResponse } from "@connectrpc/connect";

/**
 * What a transport's `unary` resolves with when the agent answers `message`
 * to `method`: no headers, no trailers. For fake transports under the client.
 */
export function unaryAnswer<I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  message: MessageShape<O>,
): UnaryResponse<I, O> {
  return { stream: false, service: method.parent, method, header: new Headers(), trailer: new Headers(), message };
}

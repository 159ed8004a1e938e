/**
 * Server-Sent Events decoding for the two HTTP bindings' streams.
 *
 * Chunks may split anywhere, also inside a CRLF pair or a multi-byte UTF-8
 * character: the streaming TextDecoder and the parser's line buffer carry the
 * partial pieces over. Each event is capped in size so that a hostile or
 * broken server cannot make the client buffer without bound.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ProtocolError, type Binding } from "../errors.js";

export interface SseEvent {
  /** The `event:` field; undefined for plain message events. */
  event: string | undefined;
  data: string;
  /** The `id:` field, kept for resumption with Last-Event-ID. */
  id: string | undefined;
}

export interface SseOptions {
  /** Largest event, in characters of its data and any incomplete line. */
  maxEventBytes: number;
  binding: Binding;
  /** Called with the server's `retry:` hint, in milliseconds. */
  onRetry?: ((ms: number) => void) | undefined;
}

export async function* decodeSse(body: AsyncIterable<Uint8Array>, options: SseOptions): AsyncGenerator<SseEvent> {
  const tooLarge = () => new ProtocolError(`stream event larger than ${options.maxEventBytes} characters`, { binding: options.binding });
  const decoder = new TextDecoder();
  let ready: SseEvent[] = [];
  let failure: ProtocolError | undefined;
  const parser = createParser({
    maxBufferSize: options.maxEventBytes,
    onEvent(e: EventSourceMessage) {
      // The parser's buffer limit only sees incomplete events; one that
      // arrives whole inside a chunk is measured here.
      if (e.data.length > options.maxEventBytes) failure ??= tooLarge();
      else ready.push({ event: e.event, data: e.data, id: e.id });
    },
    onRetry: options.onRetry,
    onError(err) {
      // Unknown fields and bad retry values are ignorable by the SSE spec;
      // only an oversized event ends the stream.
      if (err.type === "max-buffer-size-exceeded") failure ??= tooLarge();
    },
  });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (failure) throw failure;
    if (ready.length > 0) {
      const batch = ready;
      ready = [];
      yield* batch;
    }
  }
  // An event cut off by the end of the stream is dropped, as the SSE
  // specification says: only complete events are delivered.
}

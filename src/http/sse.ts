/**
 * Server-Sent Events decoding for the two HTTP bindings' streams, as the
 * HTML specification's event stream interpretation describes it.
 *
 * Chunks may split anywhere, also inside a CRLF pair or a multi-byte UTF-8
 * character: utf8Chunks and the carried-over partial line take care of that.
 * Each event is capped in size so that a hostile or broken server cannot
 * make the client buffer without bound, and the cap is judged on lines, not
 * on chunks, so the same bytes pass or fail however they are split: an event
 * fails once its data, event and id fields together exceed `maxEventBytes`
 * characters, and any line (complete or not, a comment included) once it
 * exceeds `maxEventBytes` plus room for a field name.
 */
import { ProtocolError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import { safeUrl } from "../base/urls.js";
import { utf8Chunks } from "./utf8-chunks.js";

/** Room for a field's name beside its value in one line: `event: ` is the longest the protocol uses. */
const FIELD_NAME_ROOM = 16;

/** One server-sent event. */
export interface SseEvent {
  /** The `event:` field; undefined for plain message events. */
  event: string | undefined;
  /** The `data:` lines, joined with newlines. */
  data: string;
  /** The `id:` field, kept for resumption with Last-Event-ID. */
  id: string | undefined;
}

/** Limits and callbacks of `decodeSse`. */
export interface SseOptions {
  /** Largest event, in characters of its data, event and id fields. */
  maxEventBytes: number;
  /** The binding, for the errors raised. */
  binding: Binding;
  /** The stream's URL, named (origin and path) by the error of an event over the limit. */
  url?: string | undefined;
  /** Called with the server's `retry:` hint, in milliseconds. */
  onRetry?: ((ms: number) => void) | undefined;
  /**
   * Called with the `id:` of a block without data (a checkpoint: the HTML
   * standard moves the last event id on such a block too) when no event
   * waits before it in the batch; else that event carries the id instead,
   * so the id read last is the block's whatever the order of reading.
   */
  onId?: ((id: string) => void) | undefined;
}

/**
 * The events of a `text/event-stream` body, as the HTML standard parses
 * them: any line ending, comments skipped, an event ended by a blank line.
 * Throws `ProtocolError` for an event over `maxEventBytes`.
 */
export async function* decodeSse(body: AsyncIterable<Uint8Array>, options: SseOptions): AsyncGenerator<SseEvent> {
  const decoder = sseDecoder(options);
  for await (const chunk of body) {
    yield* decoder.absorb(chunk);
    decoder.check();
  }
}

/**
 * Decodes a stream's chunks as they come, each to the events it completes
 * (`decoded-events.ts` reads a stream's body through one). An event cut off
 * by the end of the stream is never delivered, as the SSE specification
 * says: only complete events are.
 */
export interface SseDecoder {
  /** The events `chunk` completes (none, often). */
  absorb(chunk: Uint8Array): SseEvent[];
  /**
   * Throws the `ProtocolError` of an event or line over the limit, once one
   * was met: called before reading on, so the events before it are
   * delivered first.
   */
  check(): void;
}

/**
 * The decoder of one stream. The hot path of every stream, so lines are
 * found with `indexOf` rather than a regular expression, and events come
 * in batches, all those of a chunk at once.
 */
export function sseDecoder(options: SseOptions): SseDecoder {
  const maxEvent = options.maxEventBytes;
  // A line holds a field's value and its name ("data: ", "event: ").
  const maxLine = maxEvent + FIELD_NAME_ROOM;
  const utf8 = utf8Chunks();
  // The text after the last line end: an incomplete line, and the pieces it was joined from since it was last flattened.
  let rest = "";
  let restPieces = 0;
  // The previous chunk ended in CR: a LF opening this one belongs to it.
  let crAtEnd = false;
  // The event being read; `data` is undefined until a data line arrives.
  let data: string | undefined;
  let event: string | undefined;
  let id: string | undefined;
  let ready: SseEvent[] = [];
  let tooLarge = false;

  const field = (text: string, start: number, end: number) => {
    // Nothing after an oversized event or line is read, or delivered.
    if (tooLarge) return;
    if (start === end) {
      // A blank line dispatches the event; one without data is dropped,
      // but its id still moves the stream's last event id.
      if (data !== undefined) ready.push({ event: event || undefined, data, id });
      else if (id !== undefined) {
        const before = ready.at(-1);
        if (before) before.id = id;
        else options.onId?.(id);
      }
      data = event = id = undefined;
      return;
    }
    if (end - start > maxLine) {
      tooLarge = true;
      return;
    }
    // The usual line: "data: {...}".
    if (text.startsWith("data:", start)) {
      const value = text.slice(text.charCodeAt(start + 5) === 0x20 ? start + 6 : start + 5, end);
      data = data === undefined ? value : `${data}\n${value}`;
      if (data.length + (event?.length ?? 0) + (id?.length ?? 0) > maxEvent) tooLarge = true;
      return;
    }
    const line = text.slice(start, end);
    const colon = line.indexOf(":");
    if (colon === 0) return; // a comment
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1);
    switch (name) {
      case "data":
        data = data === undefined ? value : `${data}\n${value}`;
        break;
      case "event":
        event = value;
        break;
      case "id":
        if (!value.includes("\0")) id = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) options.onRetry?.(Number(value));
        break;
      // Other fields are ignored, as the specification says.
    }
    if ((data?.length ?? 0) + (event?.length ?? 0) + (id?.length ?? 0) > maxEvent) tooLarge = true;
  };

  /**
   * Reads the line from `start` to `end` of `text`. The first line of a
   * chunk may have begun in the chunks before it: only that line is joined
   * with `rest`, so a chunk's text is never copied into a bigger one.
   */
  const line = (text: string, start: number, end: number) => {
    if (rest === "") return field(text, start, end);
    const whole = rest + text.slice(start, end);
    rest = "";
    restPieces = 0;
    field(whole, 0, whole.length);
  };

  const absorb = (chunk: Uint8Array): SseEvent[] => {
    const text = utf8(chunk);
    if (text === "") return ready;
    let start = crAtEnd && text.charCodeAt(0) === 0x0a ? 1 : 0;
    crAtEnd = false;
    if (text.indexOf("\r", start) < 0) {
      // LF only, as nearly every server sends.
      for (let end = text.indexOf("\n", start); end >= 0; end = text.indexOf("\n", start)) {
        line(text, start, end);
        start = end + 1;
      }
    } else {
      for (let at = start; at < text.length; at++) {
        const c = text.charCodeAt(at);
        if (c !== 0x0a && c !== 0x0d) continue;
        line(text, start, at);
        if (c === 0x0d) {
          if (at + 1 === text.length) crAtEnd = true;
          else if (text.charCodeAt(at + 1) === 0x0a) at++;
        }
        start = at + 1;
      }
    }
    // The text after the last line end: joined as a rope, not copied, so a
    // line over many chunks costs what its bytes do, not their square. A
    // rope holds an object per piece (some 32 bytes for a one-byte chunk):
    // it is flattened now and then (reading a character makes engines join
    // it in place), geometrically, so the copying stays linear and the
    // memory near the line's own characters.
    if (start < text.length) {
      rest = start === 0 ? rest + text : rest + text.slice(start);
      if (++restPieces > 1024 && restPieces > rest.length >>> 3) {
        rest.charCodeAt(0);
        restPieces = 0;
      }
    }
    // An incomplete line only grows: past the limit now, past it when done.
    if (rest.length > maxLine) tooLarge = true;
    const batch = ready;
    ready = [];
    return batch;
  };

  return {
    absorb,
    check() {
      if (!tooLarge) return;
      const from = options.url === undefined ? "" : ` from ${safeUrl(options.url)}`;
      throw new ProtocolError(`stream event or line${from} larger than ${maxEvent} characters (maxEventBytes)`, {
        binding: options.binding,
      });
    },
  };
}

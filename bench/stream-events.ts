/**
 * How the benchmarks read a stream to its end: our client's events counted,
 * and the floors' own reading of SSE text. Apart from bench/clients.ts, which
 * loads the built library, so that bench/stream-cpu.ts reads streams the
 * same way without it.
 */

/** Counts the events of `events`, stopping early when `onEvent` says so. */
export async function countEvents(events: AsyncIterable<unknown>, onEvent?: () => boolean): Promise<number> {
  let count = 0;
  for await (const _ of events) {
    count++;
    if (onEvent && !onEvent()) break;
  }
  return count;
}

/**
 * The floors' stream reading: text chunks split on blank lines, JSON.parse
 * of each event's data, nothing else. Returns the number of events, or
 * stops early when `onEvent` says so (after calling `stop`).
 */
export async function splitEvents(chunks: AsyncIterable<string>, onEvent: (() => boolean) | undefined, stop: () => void): Promise<number> {
  let buffered = "";
  let count = 0;
  for await (const chunk of chunks) {
    buffered += chunk;
    let start = 0;
    for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n", start)) {
      JSON.parse(buffered.slice(start + 6, end)); // after "data: "
      count++;
      start = end + 2;
      if (onEvent && !onEvent()) {
        stop();
        return count;
      }
    }
    buffered = buffered.slice(start);
  }
  return count;
}

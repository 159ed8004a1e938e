/**
 * decodeSse on its own: whatever the chunking, the events that come out are
 * the events that went in; garbage ends in a ProtocolError or nothing.
 */
import * as v8 from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProtocolError } from "../../../src/errors/family.js";
import { decodeSse, type SseEvent } from "../../../src/http/sse.js";
import { jsonFaultAt } from "../../../src/http/json-fault.js";

const encoder = new TextEncoder();
const BIG = 1 << 20;

async function* chunksOf(parts: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p;
}

/** Cuts `bytes` at the given offsets (any order, duplicates allowed). */
function cut(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(at, p));
    at = p;
  }
  return out;
}

async function decodeAll(parts: readonly Uint8Array[], maxEventBytes = BIG): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of decodeSse(chunksOf(parts), { maxEventBytes, binding: "JSONRPC" })) out.push(e);
  return out;
}

function serialize(events: readonly SseEvent[], eol: string): string {
  let s = "";
  for (const e of events) {
    if (e.event !== undefined) s += `event: ${e.event}${eol}`;
    if (e.id !== undefined) s += `id: ${e.id}${eol}`;
    for (const line of e.data.split("\n")) s += `data: ${line}${eol}`;
    s += eol;
  }
  return s;
}

// Characters of data lines: multi-byte UTF-8 of two, three and four bytes,
// the SSE separators, and anything else Unicode has, except CR (a line end).
const dataChar = fc.oneof(
  fc.constantFrom("é", "𝄞", "中", "\n", ":", " ", "a", "{", '"'),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((c) => c !== "\r"),
);
const fieldChar = fc.oneof(
  fc.constantFrom("é", "𝄞", "中", ":", "-", "x"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((c) => c !== "\r" && c !== "\n" && c !== "\0"),
);
const eventArb: fc.Arbitrary<SseEvent> = fc.record({
  // An empty `event:` means "message", reported as undefined.
  event: fc.option(fc.string({ unit: fieldChar, minLength: 1, maxLength: 12 }), { nil: undefined }),
  data: fc.string({ unit: dataChar, maxLength: 40 }),
  id: fc.option(fc.string({ unit: fieldChar, maxLength: 12 }), { nil: undefined }),
});

describe("decodeSse", () => {
  it("decodes any events, LF or CRLF, split at any byte offsets", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArb, { maxLength: 8 }),
        fc.constantFrom("\n", "\r\n"),
        fc.array(fc.nat(), { maxLength: 30 }),
        async (events, eol, offsets) => {
          const bytes = encoder.encode(serialize(events, eol));
          expect(await decodeAll(cut(bytes, offsets))).toEqual(events);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("decodes a stream fed one byte at a time (every split inside UTF-8 and CRLF)", async () => {
    const events: SseEvent[] = [
      { event: "status-update", data: "é𝄞中\nsecond line\n", id: "1" },
      { event: undefined, data: "", id: undefined },
      { event: "中", data: '{"a":"𝄞"}', id: "é" },
    ];
    for (const eol of ["\n", "\r\n"]) {
      const bytes = encoder.encode(serialize(events, eol));
      const parts = Array.from(bytes, (b) => Uint8Array.of(b));
      expect(await decodeAll(parts)).toEqual(events);
    }
  });

  it("garbage bytes end in a ProtocolError or in nothing, and always end", async () => {
    // Bytes biased towards what SSE and UTF-8 decoding care about.
    const byte = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(...encoder.encode("data:event:id:retry: \r\n\n"), 0xf0, 0x9d, 0x84, 0x9e, 0xc3, 0xa9),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.array(byte, { maxLength: 300 }).map((a) => Uint8Array.from(a)),
        ),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.constantFrom(16, 64, BIG),
        async (bytes, offsets, maxEventBytes) => {
          try {
            await decodeAll(cut(bytes, offsets), maxEventBytes);
          } catch (e) {
            expect(e).toBeInstanceOf(ProtocolError);
          }
        },
      ),
      // A run that waits forever fails here instead of hanging the file.
      { numRuns: 300, timeout: 1000 },
    );
  }, 3000);

  it("an event larger than maxEventBytes fails with ProtocolError (arriving in small chunks)", async () => {
    const bytes = encoder.encode(`data: ${"x".repeat(1000)}\n\n`);
    const parts = cut(
      bytes,
      Array.from({ length: 100 }, (_, i) => i * 10),
    );
    await expect(decodeAll(parts, 100)).rejects.toBeInstanceOf(ProtocolError);
  });

  it("an event larger than maxEventBytes fails with ProtocolError (many data lines)", async () => {
    const bytes = encoder.encode(`data: ${"x".repeat(60)}\n`.repeat(20) + "\n");
    await expect(decodeAll(cut(bytes, [50, 500, 900]), 100)).rejects.toBeInstanceOf(ProtocolError);
  });

  it("an event larger than maxEventBytes fails with ProtocolError (arriving in one chunk)", async () => {
    const bytes = encoder.encode(`data: ${"x".repeat(1000)}\n\n`);
    await expect(decodeAll([bytes], 100)).rejects.toBeInstanceOf(ProtocolError);
  });

  it("an oversized event fails with the binding set, after the events before it", async () => {
    const out: SseEvent[] = [];
    const body = chunksOf([encoder.encode("data: small\n\n"), encoder.encode(`data: ${"y".repeat(200)}`)]);
    const err = await (async () => {
      for await (const e of decodeSse(body, { maxEventBytes: 100, binding: "HTTP+JSON" })) out.push(e);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(out.map((e) => e.data)).toEqual(["small"]);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).binding).toBe("HTTP+JSON");
  });

  it("an event not terminated by a blank line at the end of the stream is dropped", async () => {
    for (const tail of ["data: cut", "data: cut\n", "data: cut\r\n", "event: x\ndata: cut\n"]) {
      const bytes = encoder.encode(`data: whole\n\n${tail}`);
      expect(await decodeAll(cut(bytes, [3, 15]))).toEqual([{ event: undefined, data: "whole", id: undefined }]);
    }
  });

  it("reads CR line ends, also a CR at the end of one chunk and its LF at the start of the next", async () => {
    const text = "event: a\rdata: 1\r\rdata: 2\r\n\r\ndata: 3\n\n";
    const bytes = encoder.encode(text);
    for (let i = 0; i <= bytes.length; i++) {
      expect(await decodeAll(cut(bytes, [i]))).toEqual([
        { event: "a", data: "1", id: undefined },
        { event: undefined, data: "2", id: undefined },
        { event: undefined, data: "3", id: undefined },
      ]);
    }
  });

  it("skips comments and unknown fields, takes a field without a colon as empty, ignores ids with NUL", async () => {
    const text = ": keep-alive\nfoo: bar\ndata\ndata:x\nid: a\0b\n\nid: 7\ndata: y\n\n";
    expect(await decodeAll([encoder.encode(text)])).toEqual([
      { event: undefined, data: "\nx", id: undefined },
      { event: undefined, data: "y", id: "7" },
    ]);
  });

  it("reports retry: hints that are all digits, and only those", async () => {
    const seen: number[] = [];
    const body = chunksOf([encoder.encode("retry: 1500\nretry: 2s\nretry:-1\nretry: 40\ndata: a\n\n")]);
    const out: SseEvent[] = [];
    for await (const e of decodeSse(body, { maxEventBytes: BIG, binding: "JSONRPC", onRetry: (ms) => seen.push(ms) })) out.push(e);
    expect(seen).toEqual([1500, 40]);
    expect(out.map((e) => e.data)).toEqual(["a"]);
  });

  it("a block with an id and no data moves the last event id (a checkpoint), wherever the chunks split", async () => {
    const cases: [string, string | undefined][] = [
      ["id: 1\ndata: a\n\nid: 2\n\n: keep-alive\n\ndata: b\n\nid: 3\n\n", "3"],
      ["id: 1\ndata: a\n\nid: 2\n\ndata: b\n\n", "2"],
      ["id: 1\ndata: a\n\nid:\n\n", undefined],
    ];
    for (const [text, expected] of cases) {
      for (const offsets of [[], [16], [16, 23], [...Array(text.length).keys()]]) {
        // The last id once every event was read, as the bindings keep it (an empty id clears it).
        let last: string | undefined;
        const onId = (id: string) => void (last = id || undefined);
        const body = chunksOf(cut(encoder.encode(text), offsets));
        for await (const e of decodeSse(body, { maxEventBytes: BIG, binding: "JSONRPC", onId })) {
          if (e.id !== undefined) last = e.id || undefined;
        }
        expect(last, `${JSON.stringify(text)} split at ${offsets.length} offsets`).toBe(expected);
      }
    }
  });

  it("strips a byte order mark at the start of the stream", async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode("data: a\n\n")]);
    expect(await decodeAll(cut(bytes, [1, 2]))).toEqual([{ event: undefined, data: "a", id: undefined }]);
  });
});

describe("a line in tiny chunks", () => {
  it("a 1,000,000-character line arriving a byte per chunk costs about its characters, not an object per chunk", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const size = 1_000_000;
    let held = 0;
    let before = 0;
    async function* body(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode("data: ");
      gc();
      before = process.memoryUsage().heapUsed;
      for (let i = 0; i < size; i++) {
        if (i === size - 1) {
          gc();
          held = process.memoryUsage().heapUsed - before;
        }
        yield Uint8Array.of(0x61 + (i % 26));
      }
      yield new TextEncoder().encode("\n\n");
    }
    const events: SseEvent[] = [];
    for await (const e of decodeSse(body(), { maxEventBytes: 4 * 1024 * 1024, binding: "JSONRPC" })) events.push(e);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toHaveLength(size);
    // As a rope of one piece per chunk the line took some 32 MB; its characters are 1 MB.
    expect(held).toBeLessThan(12 * 1024 * 1024);
  });
});

describe("decodeSse limits do not depend on how the bytes are split", () => {
  /**
   * What decoding gives: the events, the last event id as the bindings keep
   * it, and whether it ended in a ProtocolError. The last id, not each
   * event's: the id of a block without data (a checkpoint) goes to `onId`,
   * or to the event read just before it in the same chunk (see
   * decodeSseBatches), so which event carries it depends on the split.
   */
  async function outcome(
    parts: readonly Uint8Array[],
    maxEventBytes: number,
  ): Promise<{ events: Omit<SseEvent, "id">[]; lastId: string | undefined; failed: boolean }> {
    const events: Omit<SseEvent, "id">[] = [];
    let lastId: string | undefined;
    const onId = (id: string) => void (lastId = id || undefined);
    try {
      for await (const e of decodeSse(chunksOf(parts), { maxEventBytes, binding: "JSONRPC", onId })) {
        events.push({ event: e.event, data: e.data });
        if (e.id !== undefined) lastId = e.id || undefined;
      }
    } catch (e) {
      expect(e).toBeInstanceOf(ProtocolError);
      return { events, lastId, failed: true };
    }
    return { events, lastId, failed: false };
  }

  // Lines around the limit: data of any length (the limit is 20 to 60),
  // several data lines, event and id fields, comments and unknown fields of
  // any length, blank lines, and an unterminated line at the end.
  const len = fc.integer({ min: 0, max: 90 });
  const line = fc.oneof(
    len.map((n) => `data: ${"d".repeat(n)}`),
    len.map((n) => `data:${"é".repeat(n)}`),
    len.map((n) => `event: ${"e".repeat(n)}`),
    len.map((n) => `id: ${"i".repeat(n)}`),
    len.map((n) => `: ${"c".repeat(n)}`),
    len.map((n) => `x-unknown: ${"u".repeat(n)}`),
    fc.constant(""),
  );
  const streamArb = fc
    .tuple(fc.array(line, { maxLength: 14 }), fc.constantFrom("\n", "\r\n", "\r"), fc.option(line, { nil: undefined }))
    .map(([lines, eol, tail]) => encoder.encode(lines.map((l) => l + eol).join("") + (tail ?? "")));

  it("the same events and the same failure whatever the split (property)", async () => {
    await fc.assert(
      fc.asyncProperty(streamArb, fc.integer({ min: 20, max: 60 }), fc.array(fc.nat(), { maxLength: 25 }), async (bytes, max, offsets) => {
        const whole = await outcome([bytes], max);
        expect(await outcome(cut(bytes, offsets), max)).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  it("byte by byte gives what one chunk gives, at the edge of the limit", async () => {
    for (const n of [98, 99, 100, 101, 110, 116, 117, 200]) {
      for (const text of [
        `data: ${"x".repeat(n)}\n\n`,
        `event: e\ndata: ${"x".repeat(n)}\n\n`,
        `: ${"c".repeat(n)}\n\ndata: after\n\n`,
        `data: ${"x".repeat(n)}`,
      ]) {
        const bytes = encoder.encode(text);
        const whole = await outcome([bytes], 100);
        expect(
          await outcome(
            Array.from(bytes, (b) => Uint8Array.of(b)),
            100,
          ),
          `${n}: ${text.slice(0, 12)}`,
        ).toEqual(whole);
      }
    }
  });

  it("an event of exactly maxEventBytes passes, one more character fails, in one chunk or split after its prefix", async () => {
    const at = (n: number) => encoder.encode(`data: ${"x".repeat(n)}\n\n`);
    for (const parts of [(b: Uint8Array) => [b], (b: Uint8Array) => [b.subarray(0, 8), b.subarray(8)]]) {
      expect((await outcome(parts(at(100)), 100)).failed).toBe(false);
      expect((await outcome(parts(at(101)), 100)).failed).toBe(true);
    }
  });

  // Named splits of one stream: every cut inside a multi-byte character,
  // inside "\r\n\r\n", inside "data:", and the big event in many chunks.
  it("named splits: inside a UTF-8 character, inside CRLF CRLF, inside data:, and an event over many chunks at the exact limit", async () => {
    const max = 60;
    const exact = `data: ${"é€😀x".repeat(12)}\r\n\r\n`; // 60 characters of data
    const over = `data: ${"é€😀x".repeat(12)}y\r\n\r\n`;
    for (const [big, fails] of [
      [exact, false],
      [over, true],
    ] as const) {
      const bytes = encoder.encode(`data: first\r\n\r\n${big}data: last\r\n\r\n`);
      const whole = await outcome([bytes], max);
      expect(whole.failed).toBe(fails);
      expect(whole.events.map((e) => e.data)).toEqual(fails ? ["first"] : ["first", big.slice(6, -4), "last"]);
      const start = encoder.encode("data: first\r\n\r\n").length;
      const text = new TextDecoder().decode(bytes);
      // Byte offsets of each place to cut: inside each character of more than one byte ...
      const inChar: number[] = [];
      for (let i = 0, at = 0; i < text.length; ) {
        const ch = String.fromCodePoint(text.codePointAt(i)!);
        const n = encoder.encode(ch).length;
        for (let k = 1; k < n; k++) inChar.push(at + k);
        at += n;
        i += ch.length;
      }
      // ... inside each "\r\n\r\n" and each "data:".
      const inMarks = [...text.matchAll(/\r\n\r\n|data:/g)].flatMap((m) =>
        Array.from({ length: m[0].length - 1 }, (_, k) => m.index + k + 1),
      );
      for (const offset of [...inChar, ...inMarks]) {
        expect(await outcome(cut(bytes, [offset]), max), `cut at ${offset}`).toEqual(whole);
      }
      // The big event in chunks of every size from 1 to 9 bytes.
      for (let size = 1; size <= 9; size++) {
        const offsets = Array.from({ length: Math.ceil((bytes.length - start) / size) }, (_, k) => start + k * size);
        expect(await outcome(cut(bytes, offsets), max), `chunks of ${size}`).toEqual(whole);
      }
    }
  });
});

describe("where an event's data stops being JSON (jsonFaultAt)", () => {
  const parses = (text: string): boolean => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };

  it("finds no fault in JSON and one in all JSON.parse refuses; in a text cut short, at its end (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.string({ maxLength: 3 }), (value, cutAt, junk) => {
        const text = JSON.stringify(value, null, cutAt % 2 === 0 ? 0 : 1);
        expect(jsonFaultAt(text)).toBe(-1);
        const cutText = text.slice(0, cutAt % (text.length + 1));
        expect(jsonFaultAt(cutText) === -1).toBe(parses(cutText));
        // Cut short: at the end, or in a number cut short there (`-`, `1.`, `2e`).
        const fault = jsonFaultAt(cutText);
        if (!parses(cutText)) expect(fault === cutText.length || /^[-+.eE\d]+$/.test(cutText.slice(fault))).toBe(true);
        const spliced = cutText + junk + text.slice(cutText.length);
        const at = jsonFaultAt(spliced);
        expect(at === -1).toBe(parses(spliced));
        expect(at).toBeLessThanOrEqual(spliced.length);
      }),
      { numRuns: 500 },
    );
  });

  it("a megabyte of [ ends without recursion: it ends too soon", () => {
    const deep = "[".repeat(1 << 20);
    expect(jsonFaultAt(deep)).toBe(deep.length);
    expect(jsonFaultAt(`${deep}x`)).toBe(deep.length);
  });
});

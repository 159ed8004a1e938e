import { describe, expect, it } from "vitest";
import { utf8Chunks } from "../../../src/http/utf8-chunks.js";

/** What a streaming TextDecoder makes of `bytes` cut at `cuts`. */
function streamed(bytes: Uint8Array, cuts: number[]): string {
  const d = new TextDecoder();
  let text = "";
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    text += d.decode(bytes.subarray(from, at), { stream: true });
    from = at;
  }
  return text + d.decode();
}

function chunked(bytes: Uint8Array, cuts: number[]): string {
  const decode = utf8Chunks();
  let text = "";
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    text += decode(bytes.subarray(from, at));
    from = at;
  }
  return text;
}

const TEXT = 'a é ✓ 𝄞 data: {"text":"日本語 😀"}\n\n';

describe("utf8Chunks", () => {
  it("decodes a text cut at any one byte, or at every byte, as one piece", () => {
    const bytes = new TextEncoder().encode(TEXT);
    for (let at = 0; at <= bytes.length; at++) expect(chunked(bytes, [at])).toBe(TEXT);
    expect(
      chunked(
        bytes,
        Array.from({ length: bytes.length }, (_, i) => i),
      ),
    ).toBe(TEXT);
  });

  it("drops one BOM at the very start, however the chunks fall, and keeps any other", () => {
    const bytes = new TextEncoder().encode("\uFEFFdata: x\uFEFF\n");
    expect(chunked(bytes, [])).toBe("data: x\uFEFF\n");
    expect(chunked(bytes, [0, 1, 2])).toBe("data: x\uFEFF\n");
    expect(chunked(new TextEncoder().encode("x\uFEFF"), [1])).toBe("x\uFEFF");
  });

  it("replaces malformed bytes as a streaming TextDecoder does", () => {
    const samples = [
      [0x61, 0xff, 0x62],
      [0xe2, 0x28, 0xa1],
      [0xf0, 0x9f, 0x98],
      [0x80, 0x80, 0x80, 0x80, 0x61],
      [0xc3],
      [0xed, 0xa0, 0x80, 0x61],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
    ].map((b) => new Uint8Array([0x7b, ...b, 0x7d, 0xc3, 0xa9]));
    for (const bytes of samples) {
      for (let at = 0; at <= bytes.length; at++) {
        expect(chunked(bytes, [at])).toBe(streamed(bytes, [at]));
      }
    }
  });
});

/**
 * `npm run bench:path` (bench/call-path.ts) counts what it says: the
 * functions of src/ that one sendMessage enters, from the operation down to
 * `fetch` and back, on the binding the card names and no other.
 */
import { describe, expect, it } from "vitest";
import { measurePaths } from "../../../bench/call-path.js";

describe("the call path count", () => {
  it("follows one sendMessage from the operation through its binding to the HTTP client", async () => {
    const paths = await measurePaths();
    for (const [binding, own, other] of [
      ["JSONRPC", "bindings/jsonrpc/", "bindings/http-json/"],
      ["HTTP+JSON", "bindings/http-json/", "bindings/jsonrpc/"],
    ] as const) {
      const { stops, files, folders, crossings } = paths[binding];
      expect(stops[0], binding).toEqual({ file: "client/client.ts", fn: "A2AClient.sendMessage" });
      const visited = stops.map((s) => s.file);
      expect(
        visited.some((f) => f.startsWith(own)),
        binding,
      ).toBe(true);
      expect(
        visited.some((f) => f.startsWith(other)),
        binding,
      ).toBe(false);
      expect(visited, binding).toContain("http/fetch-client.ts");
      // Leaf helpers are not stops.
      expect(
        visited.filter((f) => f.startsWith("base/")),
        binding,
      ).toEqual([]);
      expect(files, binding).toBe(new Set(visited).size);
      expect(folders, binding).toBeLessThanOrEqual(files);
      expect(crossings, binding).toBeGreaterThanOrEqual(folders - 1);
      expect(crossings, binding).toBeLessThan(stops.length);
    }
  }, 60_000);
});

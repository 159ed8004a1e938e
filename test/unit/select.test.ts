/**
 * Interface selection (spec 8.3.2) over many card orders and runtimes.
 */
import { create } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentInterfaceSchema, rankInterfaces, type AgentInterface, type Binding, type SelectionRules } from "../../src/index.js";

const iface = (protocolBinding: string, protocolVersion: string, url = `https://a.example/${protocolBinding}/${protocolVersion}`, tenant = "") =>
  create(AgentInterfaceSchema, { url, protocolBinding, protocolVersion, tenant });

const node: SelectionRules["supports"] = (b, v) => (["1.0", "0.3"].includes(v) ? true : `no ${b} ${v}`);
const browser: SelectionRules["supports"] = (b, v) => (b === "GRPC" ? "no gRPC in browsers" : node(b, v));

const rank = (list: AgentInterface[], rules: Partial<SelectionRules> = {}) => rankInterfaces(list, { supports: node, ...rules });
const names = (r: ReturnType<typeof rank>) => r.candidates.map((c) => `${c.binding} ${c.version}`);

describe("rankInterfaces", () => {
  it("keeps the card's order: the first supported interface wins", () => {
    expect(names(rank([iface("GRPC", "1.0"), iface("JSONRPC", "1.0"), iface("HTTP+JSON", "1.0")]))).toEqual([
      "GRPC 1.0",
      "JSONRPC 1.0",
      "HTTP+JSON 1.0",
    ]);
  });

  it("passes over what the runtime cannot speak, saying why", () => {
    const r = rankInterfaces([iface("GRPC", "1.0"), iface("JSONRPC", "1.0")], { supports: browser });
    expect(names(r)).toEqual(["JSONRPC 1.0"]);
    expect(r.passedOver).toEqual([{ interface: expect.objectContaining({ protocolBinding: "GRPC" }), reason: "no gRPC in browsers" }]);
  });

  it("lets preferredBindings reorder bindings, the rest keeping card order", () => {
    const card = [iface("JSONRPC", "1.0"), iface("HTTP+JSON", "1.0"), iface("GRPC", "1.0")];
    expect(names(rank(card, { preferredBindings: ["GRPC"] }))).toEqual(["GRPC 1.0", "JSONRPC 1.0", "HTTP+JSON 1.0"]);
    expect(names(rank(card, { preferredBindings: ["HTTP+JSON", "GRPC"] }))).toEqual(["HTTP+JSON 1.0", "GRPC 1.0", "JSONRPC 1.0"]);
  });

  it("puts 1.0 before 0.3 within a binding, whatever the card's order", () => {
    const card = [iface("JSONRPC", "0.3"), iface("HTTP+JSON", "1.0"), iface("JSONRPC", "1.0"), iface("HTTP+JSON", "0.3")];
    expect(names(rank(card))).toEqual(["JSONRPC 1.0", "JSONRPC 0.3", "HTTP+JSON 1.0", "HTTP+JSON 0.3"]);
  });

  it("compares Major.Minor only", () => {
    const r = rank([iface("JSONRPC", "1.0.1"), iface("JSONRPC", "0.3.0")]);
    expect(r.candidates.map((c) => [c.version, c.interface.protocolVersion])).toEqual([
      ["1.0", "1.0.1"],
      ["0.3", "0.3.0"],
    ]);
  });

  it("honours protocolVersions, passing over the versions left out", () => {
    const r = rank([iface("JSONRPC", "0.3"), iface("JSONRPC", "1.0")], { protocolVersions: ["1.0"] });
    expect(names(r)).toEqual(["JSONRPC 1.0"]);
    expect(r.passedOver[0]!.reason).toMatch(/0\.3 is not among the versions allowed/);
    expect(names(rank([iface("JSONRPC", "0.3"), iface("JSONRPC", "1.0")], { protocolVersions: ["0.3", "1.0"] }))).toEqual([
      "JSONRPC 0.3",
      "JSONRPC 1.0",
    ]);
  });

  it("passes over unknown bindings, versions that are not versions, missing URLs and repeats", () => {
    const r = rank([
      iface("CARRIER-PIGEON", "1.0"),
      iface("JSONRPC", "latest"),
      iface("JSONRPC", "2.0"),
      iface("JSONRPC", "1.0", ""),
      iface("jsonrpc", "1.0", "https://a.example/rpc"),
      iface("JSONRPC", "1.0", "https://a.example/rpc"),
    ]);
    expect(r.passedOver.map((p) => p.reason)).toEqual([
      'binding "CARRIER-PIGEON" is not one this client speaks',
      'protocol version "latest" is not a version',
      "protocol version 2.0 is not among the versions allowed (1.0, 0.3)",
      "it has no URL",
      "it repeats an earlier interface",
    ]);
    expect(names(r)).toEqual(["JSONRPC 1.0"]);
    expect(r.candidates[0]!.interface.protocolBinding).toBe("jsonrpc");
  });

  it("holds its rule for any card order (property)", () => {
    const arbInterface = fc
      .record({
        binding: fc.constantFrom<Binding>("JSONRPC", "HTTP+JSON", "GRPC"),
        version: fc.constantFrom("1.0", "0.3", "1.0.2", "2.0"),
        host: fc.integer({ min: 0, max: 3 }),
      })
      .map((x) => iface(x.binding, x.version, `https://h${x.host}.example/${x.binding}`));
    fc.assert(
      fc.property(fc.array(arbInterface, { maxLength: 10 }), fc.boolean(), (card, inBrowser) => {
        const supports = inBrowser ? browser : node;
        const r = rankInterfaces(card, { supports });
        // Everything is either a candidate or passed over.
        expect(r.candidates.length + r.passedOver.length).toBe(card.length);
        for (const c of r.candidates) expect(supports(c.binding, c.version)).toBe(true);
        // The chosen interface's binding is the first usable binding in the card.
        const firstUsable = card.find((i) => r.candidates.some((c) => c.interface === i));
        if (firstUsable) expect(r.candidates[0]!.binding).toBe(firstUsable.protocolBinding);
        // Within a binding, 1.0 comes before 0.3, and candidates of one binding stay together.
        const seen: string[] = [];
        for (const c of r.candidates) {
          if (seen.at(-1) !== c.binding) {
            expect(seen).not.toContain(c.binding);
            seen.push(c.binding);
          }
        }
        for (const b of seen) {
          const versions = r.candidates.filter((c) => c.binding === b).map((c) => c.version);
          expect(versions).toEqual([...versions].sort().reverse());
        }
      }),
      { numRuns: 300 },
    );
  });
});

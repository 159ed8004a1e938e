/**
 * Interface selection (spec 8.3.2) over many card orders and runtimes.
 */
import { create } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AgentInterfaceSchema,
  InvalidParamsError,
  NoCompatibleInterfaceError,
  connect,
  type AgentInterface,
  type Binding,
} from "../../../src/index.js";
import { cardJson } from "../../support/cards.js";
import { rankInterfaces, type SelectionRules } from "../../../src/client/select.js";

const iface = (
  protocolBinding: string,
  protocolVersion: string,
  url = `https://a.example/${protocolBinding}/${protocolVersion}`,
  tenant = "",
) => create(AgentInterfaceSchema, { url, protocolBinding, protocolVersion, tenant });

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

  it("passes over an interface whose URL its binding cannot call (javascript:, file:, relative, not a URL), saying why", () => {
    const hostile = ["javascript:alert(1)", "file:///etc/passwd", "/a2a/jsonrpc", "http://[::1", "ftp://a.example/a2a"];
    const card = [...hostile.map((url) => iface("JSONRPC", "1.0", url)), iface("GRPC", "1.0", "javascript:alert(1)")];
    const good = [iface("HTTP+JSON", "1.0", "https://a.example/rest"), iface("GRPC", "1.0", "a.example:443")];
    const r = rank([...card, ...good]);
    expect(r.candidates.map((c) => c.interface.url)).toEqual(["https://a.example/rest", "a.example:443"]);
    expect(r.passedOver.map((p) => p.interface.url)).toEqual(card.map((i) => i.url));
    for (const p of r.passedOver) expect(p.reason).toMatch(/^its URL is not one (JSONRPC|GRPC) can call$/);
  });

  it("ranks a card of 20,000 interfaces (what 2 MiB of card holds) in time linear in their number, repeats found", () => {
    const card = Array.from({ length: 20_000 }, (_, i) => iface("JSONRPC", "1.0", `https://h${i % 19_999}.example/a2a`));
    const started = performance.now();
    const r = rank(card);
    // Comparing each with every usable one before it took seconds; a set takes tens of milliseconds.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(r.candidates).toHaveLength(19_999);
    expect(r.passedOver).toEqual([{ interface: card[19_999], reason: "it repeats an earlier interface" }]);
  });

  it("connect() to a card of 5,000 unusable interfaces: the error names the first 10 and counts the rest; passedOver has all", async () => {
    const supportedInterfaces = Array.from({ length: 5000 }, (_, i) => ({
      url: `https://h${i}.example/a2a`,
      protocolBinding: "XRPC",
      protocolVersion: "1.0",
    }));
    const e = await connect(cardJson({ supportedInterfaces }) as never).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NoCompatibleInterfaceError);
    const { message, passedOver } = e as NoCompatibleInterfaceError;
    expect(passedOver).toHaveLength(5000);
    expect(message.match(/XRPC 1\.0 at https:\/\/h\d+\.example\/a2a: binding "XRPC" is not one this client speaks/g)).toHaveLength(10);
    expect(message).toMatch(/; 4990 more\)$/);
  });

  it("lets preferredBindings reorder bindings, the rest keeping card order", () => {
    const card = [iface("JSONRPC", "1.0"), iface("HTTP+JSON", "1.0"), iface("GRPC", "1.0")];
    expect(names(rank(card, { preferredBindings: ["GRPC"] }))).toEqual(["GRPC 1.0", "JSONRPC 1.0", "HTTP+JSON 1.0"]);
    expect(names(rank(card, { preferredBindings: ["HTTP+JSON", "GRPC"] }))).toEqual(["HTTP+JSON 1.0", "GRPC 1.0", "JSONRPC 1.0"]);
  });

  it("keeps card order across versions: [JSONRPC 0.3 @A, JSONRPC 1.0 @B] selects A (spec 8.3.2)", () => {
    const card = [iface("JSONRPC", "0.3", "https://a.example/A"), iface("JSONRPC", "1.0", "https://a.example/B")];
    expect(rank(card).candidates.map((c) => c.interface.url)).toEqual(["https://a.example/A", "https://a.example/B"]);
    // With 0.3 not spoken, its entry is unusable and B is chosen.
    expect(rank(card, { protocolVersions: ["1.0"] }).candidates.map((c) => c.interface.url)).toEqual(["https://a.example/B"]);
  });

  it("keeps card order across bindings too: entries of one binding are not pulled together", () => {
    const card = [
      iface("JSONRPC", "1.0", "https://a.example/A"),
      iface("HTTP+JSON", "1.0"),
      iface("JSONRPC", "1.0", "https://a.example/C"),
    ];
    expect(rank(card).candidates.map((c) => c.interface.url)).toEqual([
      "https://a.example/A",
      "https://a.example/HTTP+JSON/1.0",
      "https://a.example/C",
    ]);
  });

  it("ranks versions only when asked: preferredVersions, after preferredBindings", () => {
    const card = [iface("JSONRPC", "0.3"), iface("HTTP+JSON", "1.0"), iface("JSONRPC", "1.0"), iface("HTTP+JSON", "0.3")];
    expect(names(rank(card))).toEqual(["JSONRPC 0.3", "HTTP+JSON 1.0", "JSONRPC 1.0", "HTTP+JSON 0.3"]);
    expect(names(rank(card, { preferredVersions: ["1.0"] }))).toEqual(["HTTP+JSON 1.0", "JSONRPC 1.0", "JSONRPC 0.3", "HTTP+JSON 0.3"]);
    expect(names(rank(card, { preferredBindings: ["JSONRPC"], preferredVersions: ["1.0.2"] }))).toEqual([
      "JSONRPC 1.0",
      "JSONRPC 0.3",
      "HTTP+JSON 1.0",
      "HTTP+JSON 0.3",
    ]);
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

  it("with bindings, uses only those: the others are passed over saying why, and preferredBindings ranks within", () => {
    const card = [iface("JSONRPC", "1.0"), iface("GRPC", "0.3"), iface("HTTP+JSON", "1.0"), iface("GRPC", "1.0")];
    const r = rank(card, { bindings: ["GRPC"] });
    expect(names(r)).toEqual(["GRPC 0.3", "GRPC 1.0"]);
    expect(r.passedOver.map((p) => `${p.interface.protocolBinding}: ${p.reason}`)).toEqual([
      "JSONRPC: binding JSONRPC is not among the bindings allowed (GRPC)",
      "HTTP+JSON: binding HTTP+JSON is not among the bindings allowed (GRPC)",
    ]);
    expect(names(rank(card, { bindings: ["GRPC", "HTTP+JSON"], preferredBindings: ["HTTP+JSON"] }))).toEqual([
      "HTTP+JSON 1.0",
      "GRPC 0.3",
      "GRPC 1.0",
    ]);
    // A binding the runtime cannot build is still passed over for that reason.
    expect(rankInterfaces(card, { supports: browser, bindings: ["GRPC"] }).candidates).toEqual([]);
  });

  it("reads binding names in any case, and refuses unknown names and an empty bindings with InvalidParamsError naming the option", () => {
    const card = [iface("JSONRPC", "1.0"), iface("GRPC", "1.0")];
    expect(names(rank(card, { bindings: ["grpc" as Binding] }))).toEqual(["GRPC 1.0"]);
    expect(names(rank(card, { preferredBindings: [" Grpc " as Binding] }))).toEqual(["GRPC 1.0", "JSONRPC 1.0"]);
    const bad: Array<[Partial<SelectionRules>, RegExp]> = [
      [{ bindings: ["GRPCWEB" as Binding] }, /^bindings: "GRPCWEB" is not a binding \(JSONRPC, HTTP\+JSON, GRPC\)$/],
      [{ bindings: [] }, /^bindings must be a non-empty list of bindings/],
      [{ bindings: "GRPC" as unknown as Binding[] }, /^bindings must be a non-empty list/],
      [{ preferredBindings: ["REST" as Binding] }, /^preferredBindings: "REST" is not a binding/],
      [{ bindings: [42 as unknown as Binding] }, /^bindings: "42" is not a binding/],
    ];
    for (const [rules, message] of bad) {
      expect(() => rank(card, rules)).toThrow(InvalidParamsError);
      expect(() => rank(card, rules)).toThrow(message);
    }
    // An empty preference is no preference.
    expect(names(rank(card, { preferredBindings: [] }))).toEqual(["JSONRPC 1.0", "GRPC 1.0"]);
  });

  it("holds its rule for any card order (property)", () => {
    const arbInterface = fc
      .record({
        binding: fc.constantFrom<Binding>("JSONRPC", "HTTP+JSON", "GRPC"),
        version: fc.constantFrom("1.0", "0.3", "1.0.2", "2.0"),
        host: fc.integer({ min: 0, max: 3 }),
      })
      .map((x) => iface(x.binding, x.version, `https://h${x.host}.example/${x.binding}`));
    const arbPreferred = fc.option(fc.subarray<Binding>(["JSONRPC", "HTTP+JSON", "GRPC"]), { nil: undefined });
    fc.assert(
      fc.property(fc.array(arbInterface, { maxLength: 10 }), fc.boolean(), arbPreferred, (card, inBrowser, preferredBindings) => {
        const supports = inBrowser ? browser : node;
        const r = rankInterfaces(card, { supports, preferredBindings });
        // Everything is either a candidate or passed over.
        expect(r.candidates.length + r.passedOver.length).toBe(card.length);
        for (const c of r.candidates) expect(supports(c.binding, c.version)).toBe(true);
        // Candidates are ordered by preferred binding, then by card position, and by nothing else.
        const rankOf = (b: Binding) => {
          const i = (preferredBindings ?? []).indexOf(b);
          return i >= 0 ? i : 3;
        };
        const positions = r.candidates.map((c) => card.indexOf(c.interface));
        const expected = [...positions].sort(
          (a, b) => rankOf(r.candidates[positions.indexOf(a)]!.binding) - rankOf(r.candidates[positions.indexOf(b)]!.binding) || a - b,
        );
        expect(positions).toEqual(expected);
        // Without preferences, the first usable entry of the card wins.
        if (!preferredBindings && r.candidates[0]) {
          const firstUsable = card.find((i) => r.candidates.some((c) => c.interface === i));
          expect(r.candidates[0].interface).toBe(firstUsable);
        }
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * The bundle budget, enforced: the same measurement as `npm run size`
 * (minified, browser, ESM with code splitting, each file gzipped).
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  boundaryCosts,
  bytesByOwner,
  CORE_BUDGET_GZIP,
  formatWhere,
  GRPC_WEB_BUDGET_GZIP,
  measureSizes,
  ownerOf,
  type SizeRow,
} from "../../../scripts/size.js";

let rows: Map<string, SizeRow>;
beforeAll(async () => {
  rows = new Map((await measureSizes()).map((r) => [r.id, r]));
}, 60_000);

describe("bundle size", () => {
  it("core (connect + send + stream over JSON-RPC and HTTP+JSON) is within its budget", () => {
    const core = rows.get("core")!;
    expect(core.total.gzip, `core is ${core.total.gzip} bytes gzip`).toBeLessThanOrEqual(CORE_BUDGET_GZIP);
  });

  it("core carries neither verification, gRPC-web nor the 0.3 wire", () => {
    const core = rows.get("core")!;
    const inputs = core.largest.map((i) => i.path);
    expect(
      inputs.filter((p) =>
        /node_modules\/(jose|canonicalize|@connectrpc\/connect-web)\/|src\/v0_3\/(translate|adapter)|gen\/a2a\//.test(p),
      ),
    ).toEqual([]);
  });

  it("core carries no code of the gRPC bindings: a gRPC interface's URL is read by the auth plan, loaded on demand", () => {
    expect(
      rows
        .get("core")!
        .largest.map((i) => i.path)
        .filter((p) => p.startsWith("src/bindings/grpc/")),
    ).toEqual([]);
  });

  it("core reads 0.3 cards with code loaded on demand: the start only tells them apart", () => {
    const inputs = rows.get("core")!.largest.map((i) => i.path);
    expect(inputs).toContain("src/v0_3/card-version.ts");
    expect(inputs).not.toContain("src/v0_3/card.ts");
    expect(rows.get("core")!.loadedOnDemand).toContain("src/v0_3/card.ts");
  });

  it("core classifies failures with code loaded when a call first fails: the start only passes A2AErrors on", () => {
    const inputs = rows.get("core")!.largest.map((i) => i.path);
    expect(inputs).toContain("src/errors/classification.ts");
    expect(inputs).toContain("src/http/failure-reading.ts");
    for (const module of ["src/errors/classify.ts", "src/http/error-bodies.ts", "src/http/json-fault.ts"]) {
      expect(inputs, module).not.toContain(module);
    }
    expect(rows.get("core")!.loadedOnDemand).toEqual(expect.arrayContaining(["src/errors/classify.ts", "src/http/error-reading.ts"]));
  });

  it("core's start holds neither connect's error class nor protobuf-es's binary reader: only the gRPC transports make ConnectErrors", () => {
    // The classification and the gRPC binding's naming of failures, which share chunks with the start,
    // tell a ConnectError by its shape (errors/classify.ts's isConnectError): the class, and the binary
    // reader its findDetails brings, cost the start 2,960 gzip bytes when they imported it.
    const inputs = rows.get("core")!.largest.map((i) => i.path);
    expect(inputs.filter((p) => /\/(from-binary|connect-error)\.js$/.test(p))).toEqual([]);
  });

  it("the resumption loop, loaded on demand, is handed the start's code: its modules stay in the start's own chunk", () => {
    const own = rows.get("core")!.startChunks.each.find((c) => c.alsoLoadedBy.length === 0)!;
    for (const module of [
      "src/client/resume-policy.ts",
      "src/client/task-events.ts",
      "src/client/next-of.ts",
      "src/client/settled-end.ts",
      "src/call/attempt-rules.ts",
    ]) {
      expect(own.inputs, module).toContain(module);
    }
  });

  it("verification, loaded on demand, is handed the start's code it uses: those modules stay in the start's own chunk", () => {
    const own = rows.get("core")!.startChunks.each.find((c) => c.alsoLoadedBy.length === 0)!;
    for (const module of [
      "src/protocol/required.ts",
      "gen/lf/a2a/v1/a2a_facts.ts",
      "src/base/duplicate-keys.ts",
      "src/base/options-key.ts",
      "src/trust/signed.ts",
      "src/v0_3/card-version.ts",
      "src/trust/verify-kit.ts",
    ]) {
      expect(own.inputs, module).toContain(module);
    }
  });

  it("the 0.3 wire, loaded on demand, is handed the HTTP core it builds on: the core stays in the start's own chunk", () => {
    const own = rows.get("core")!.startChunks.each.find((c) => c.alsoLoadedBy.length === 0)!;
    for (const module of [
      "src/http/binding-transport.ts",
      "src/http/run-call.ts",
      "src/bindings/jsonrpc/transport.ts",
      "src/bindings/http-json/transport.ts",
      "src/bindings/http-json/routes.ts",
      "src/call/options.ts",
      "src/call/target.ts",
    ]) {
      expect(own.inputs, module).toContain(module);
    }
  });

  it("gRPC-web names its failures with code loaded when a call first fails: its start carries no classification", () => {
    const grpcWeb = rows.get("grpc-web")!;
    const inputs = grpcWeb.largest.map((i) => i.path);
    expect(inputs).toContain("src/bindings/grpc/common.ts");
    for (const module of [
      "src/bindings/grpc/failures.ts",
      "src/errors/classify.ts",
      "src/http/error-bodies.ts",
      "gen/google/rpc/error_details_pb.ts",
    ]) {
      expect(inputs, module).not.toContain(module);
    }
    expect(grpcWeb.loadedOnDemand).toContain("src/bindings/grpc/failures.ts");
    // Binary only (web-transport.ts), its status read with our google.rpc.Status (web-status.ts):
    // no ProtoJSON of protobuf-es's, and no descriptor.proto's schemas, which connect's own Status needs.
    expect(grpcWeb.largest.filter((i) => /(to|from)-json\.js$|descriptor_pb\.js$/.test(i.path))).toEqual([]);
    expect(grpcWeb.atStart.gzip, `gRPC-web is ${grpcWeb.atStart.gzip} bytes gzip at start`).toBeLessThanOrEqual(GRPC_WEB_BUDGET_GZIP);
  });

  it("core reads and writes ProtoJSON with its own code: protobuf-es's from-json.js and to-json.js are nowhere in it", () => {
    const core = rows.get("core")!;
    expect(core.largest.filter((i) => /(to|from)-json\.js$/.test(i.path))).toEqual([]);
    // With them went protobuf-es's own Struct and Value schemas, and so descriptor.proto's.
    expect(core.largest.filter((i) => /descriptor_pb\.js$/.test(i.path))).toEqual([]);
    expect(core.largest.map((i) => i.path)).toEqual(expect.arrayContaining(["src/protocol/json-read.ts", "src/protocol/json-write.ts"]));
  });

  it("the floor row is protobuf-es with the A2A descriptors alone: none of the client, and below core", () => {
    const floor = rows.get("floor")!;
    expect(floor.largest.filter((i) => /^src\//.test(i.path))).toEqual([]);
    expect(floor.largest.some((i) => i.path.endsWith("gen/lf/a2a/v1/a2a_pb.ts"))).toBe(true);
    expect(floor.largest.filter((i) => /(to|from)-json\.js$/.test(i.path))).toEqual([]);
    expect(floor.total.gzip).toBeLessThan(rows.get("core")!.total.gzip);
  });

  it("verification and the 0.3 wire load on demand, and only for the apps that need them", () => {
    for (const id of ["verify", "v0.3"]) {
      const row = rows.get(id)!;
      // The same start as core (the apps differ by a few bytes of their own).
      expect(Math.abs(row.atStart.gzip - rows.get("core")!.atStart.gzip), id).toBeLessThan(256);
      expect(row.onDemand.gzip, id).toBeGreaterThan(5 * 1024);
    }
  });
});

describe("where the bytes go (npm run size -- --where)", () => {
  it("names each input's owner: a package by its name, the generated code, our folders, the app", () => {
    expect(ownerOf("../main/node_modules/@bufbuild/protobuf/dist/esm/from-json.js")).toBe("@bufbuild/protobuf");
    expect(ownerOf("node_modules/jose/dist/webapi/lib/key.js")).toBe("jose");
    expect(ownerOf("gen/lf/a2a/v1/a2a_pb.ts")).toBe("gen/");
    expect(ownerOf("src/errors/classify.ts")).toBe("src/errors/");
    expect(ownerOf("src/index.ts")).toBe("src/");
    expect(ownerOf("../../tmp/a2a-connect-size-x/core.js")).toBe("the app");
  });

  it("adds core's modules up by owner, protobuf-es first, and tells what its chunks cost", () => {
    const core = rows.get("core")!;
    const owners = bytesByOwner(core);
    expect(owners[0]!.owner).toBe("@bufbuild/protobuf");
    expect(owners.reduce((n, o) => n + o.bytes, 0)).toBe(core.largest.reduce((n, i) => n + i.bytes, 0));
    expect(owners.map((o) => o.owner)).toEqual(expect.arrayContaining(["gen/", "@connectrpc/connect", "src/client/", "src/http/"]));
    expect(core.startChunks.count).toBeGreaterThan(1);
    expect(core.startChunks.gzipAsOne).toBeLessThan(core.atStart.gzip);
    const where = formatWhere(core);
    expect(where).toContain(`in ${core.startChunks.count} chunks`);
    expect(where).toContain(`| @bufbuild/protobuf | ${owners[0]!.bytes} |`);
    expect(where).toContain("| gen/lf/a2a/v1/a2a_pb.ts |");
    // Each chunk at start, and what else loads it: the app's own chunk alone is loaded by nothing on demand.
    const chunks = core.startChunks.each;
    expect(chunks).toHaveLength(core.startChunks.count);
    expect(chunks.reduce((n, c) => n + c.gzip, 0)).toBe(core.atStart.gzip);
    expect(chunks.filter((c) => c.alsoLoadedBy.length === 0)).toHaveLength(1);
    expect(chunks.find((c) => c.inputs.includes("src/errors/family.ts"))!.alsoLoadedBy).toContain("src/bindings/v0_3-transports.ts");
    expect(where).toContain("| chunk at start: its largest inputs | gzip bytes | loaded on demand by, too |");
  });
});

/** Bytes of gzip output that the order of a chunk's modules alone can move. */
const GZIP_ORDER_NOISE = 128;

describe("what each module loaded on demand costs the start (npm run size -- --boundaries)", () => {
  it("lists every module core imports on demand, the dearest first, each costing the start 0 bytes or more, within gzip's noise", async () => {
    const { each: costs, together } = await boundaryCosts();
    const modules = costs.map((c) => c.module);
    expect(modules).toEqual(expect.arrayContaining(["src/bindings/v0_3-transports.ts", "src/client/resume.ts", "src/trust/verify.ts"]));
    expect([...modules].sort()).toEqual([...rows.get("core")!.loadedOnDemand].sort());
    expect(costs.map((c) => c.bytes)).toEqual([...costs.map((c) => c.bytes)].sort((a, b) => b - a));
    // Some boundary still splits the start's chunks it shares with the rest.
    expect(costs[0]!.bytes).toBeGreaterThan(2 * GZIP_ORDER_NOISE);
    // The 0.3 wire, handed the HTTP core (bindings/v0_3-kit.ts), and the resumption loop, handed the
    // start's code (resume-start.ts), split off no chunk of the start's own: 2,182 and 854 bytes when they imported it.
    const cost = (module: string) => costs.find((c) => c.module === module)!.bytes;
    expect(cost("src/bindings/v0_3-transports.ts")).toBeLessThan(1024);
    expect(cost("src/client/resume.ts")).toBeLessThan(GZIP_ORDER_NOISE);
    // The retry loop, handed the option checks' shownValue and the signal and timer helpers (call/retry-kit.ts): 309 when it imported them.
    expect(cost("src/call/retry.ts")).toBeLessThan(GZIP_ORDER_NOISE);
    // A boundary that costs nothing may come out a little below 0: leaving one import() out moves
    // modules within the largest chunk, and gzip finds other matches (up to about 90 bytes measured).
    for (const c of costs) expect(c.bytes, c.module).toBeGreaterThan(-GZIP_ORDER_NOISE);
    // Together they cost more than the dearest alone: the splits of the start overlap.
    expect(together).toBeGreaterThan(costs[0]!.bytes);
    expect(together).toBeLessThan(rows.get("core")!.atStart.gzip - rows.get("proto-json")!.atStart.gzip);
  }, 120_000);
});

// The `a2a` command line as parsed, without spawning a process.
import { describe, expect, it } from "vitest";
import { UsageError, parseCommandLine } from "../../src/cli/args.js";

const URL = "http://127.0.0.1:1";

function flagsOf(argv: string[]) {
  const parsed = parseCommandLine(argv);
  if (parsed.kind !== "run") throw new Error(`expected a command, got ${parsed.kind}`);
  return parsed.flags;
}

describe("--binding", () => {
  it("takes the binding in any case and gives it as the card spells it", () => {
    expect(flagsOf(["card", URL, "--binding", "jsonrpc"]).binding).toBe("JSONRPC");
    expect(flagsOf(["card", URL, "--binding", "http+json"]).binding).toBe("HTTP+JSON");
    expect(flagsOf(["card", URL, "--binding=Grpc"]).binding).toBe("GRPC");
    expect(flagsOf(["card", URL]).binding).toBeUndefined();
  });

  it("rejects an unknown binding with a usage error listing the valid ones", () => {
    expect(() => parseCommandLine(["card", URL, "--binding", "soap"])).toThrow(UsageError);
    expect(() => parseCommandLine(["card", URL, "--binding", "soap"])).toThrow(/JSONRPC, HTTP\+JSON, GRPC/);
  });
});

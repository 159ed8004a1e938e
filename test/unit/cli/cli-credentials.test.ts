/**
 * Where `a2a` sends `--token` and `--header`: to the interface the card
 * names, over https, or over plain http only to this machine or to the host
 * the user typed as an http URL, unless `--auth-over-http`.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UnaryRequest } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AuthenticationError } from "../../../src/index.js";
import { parseCommandLine } from "../../../src/cli/args.js";
import { continueCommand } from "../../../src/cli/continue-hint.js";
import { EXIT } from "../../../src/cli/exit-codes.js";
import { Output } from "../../../src/cli/output.js";
import { commandLineCredentialsGuard } from "../../../src/cli/plain-http.js";
import { create } from "@bufbuild/protobuf";
import { TaskSchema } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { cardJson } from "../../support/cards.js";
import { runCli } from "../../support/run-cli.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-creds-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a card that names a plain http interface at another host", () => {
  it.each([
    ["--token", ["--token", "tok-9f2c71"], "tok-9f2c71"],
    ["A2A_TOKEN", [], "env-tok-5b3a"],
    ["--header", ["--header", "X-Api-Key: key-77e1d0"], "key-77e1d0"],
  ])("%s: exit 4 before anything is sent, naming the interface and --auth-over-http, not the secret", async (_label, flags, secret) => {
    const file = join(dir, `card-${secret}.json`);
    await writeFile(
      file,
      JSON.stringify(
        cardJson({ supportedInterfaces: [{ url: "http://agent.example/a2a?k=q1", protocolBinding: "JSONRPC", protocolVersion: "1.0" }] }),
      ),
    );
    const r = await runCli(["send", file, "hi", ...flags], { env: flags.length === 0 ? { A2A_TOKEN: secret } : {} });
    expect(r.code).toBe(EXIT.auth);
    expect(r.stderr).toContain("AuthenticationError");
    expect(r.stderr).toContain("http://agent.example/a2a");
    expect(r.stderr).toContain("--auth-over-http");
    expect(r.stderr).not.toContain(secret);
    // Named by origin and path: a query may hold a key.
    expect(r.stderr.split("\n").find((l) => l.includes("AuthenticationError"))).not.toContain("q1");
  });
});

describe("the guard on each call", () => {
  const request = (url: string) => ({ url }) as UnaryRequest;
  const answer = { stream: false } as never;

  async function sends(typed: string | undefined, url: string): Promise<boolean> {
    const next = vi.fn(async () => answer);
    try {
      await commandLineCredentialsGuard(typed)(next)(request(url));
    } catch (e) {
      expect(e).toBeInstanceOf(AuthenticationError);
      expect(next).not.toHaveBeenCalled();
      return false;
    }
    expect(next).toHaveBeenCalledOnce();
    return true;
  }

  it.each([
    ["https://agent.example", "http://other.example/a2a", false],
    ["https://agent.example", "http://agent.example/a2a", false],
    [undefined, "http://agent.example/a2a", false],
    ["http://agent.example:8080", "http://10.0.0.7:8080/a2a", false],
    ["http://agent.example:8080", "http://agent.example:9090/a2a", true],
    ["https://agent.example", "https://other.example/a2a", true],
    [undefined, "http://127.0.0.1:41241/a2a", true],
    [undefined, "http://localhost:41241/a2a", true],
    [undefined, "http://[::1]:41241/a2a", true],
  ])("typed %s, the card's interface %s: sent %s", async (typed, url, expected) => {
    expect(await sends(typed, url)).toBe(expected);
  });
});

describe("--auth-over-http and --allow-local-urls", () => {
  it("are read as flags, and the command that continues a task repeats them", () => {
    const parsed = parseCommandLine(["send", "https://agent.example", "hi", "--token", "t", "--auth-over-http", "--allow-local-urls"], {});
    if (parsed.kind !== "run") throw new Error("expected a command");
    expect(parsed.flags).toMatchObject({ authOverHttp: true, allowLocalUrls: true });
    const out = new Output({ json: false, secrets: [] });
    const task = create(TaskSchema, { id: "t-1", contextId: "c-1" });
    expect(continueCommand({ args: parsed.args, options: parsed.options, out }, task)).toContain("--auth-over-http --allow-local-urls");
  });
});

// The `a2a` CLI as a scripting tool, run in this process against the local
// agent (the official @a2a-js/sdk server on 127.0.0.1): ProtoJSON output,
// the -v wire log and its masking, host:port and card-file targets, the
// command that continues a task waiting for input, and streams that drop.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { startChaosProxy } from "../../demo/chaos-proxy.js";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { EXIT } from "../../src/cli/exit-codes.js";
import { A2AClient, createJsonRpcTransport, fromProtoJson, StreamResponseSchema, toProtoJson, userMessage } from "../../src/index.js";
import { runCli } from "../support/run-cli.js";

let agent: LocalAgent;
let dir: string;
let cardText: string;

beforeAll(async () => {
  agent = await startLocalAgent();
  dir = await mkdtemp(join(tmpdir(), "a2a-cli-scripting-"));
  cardText = await (await fetch(agent.cardUrl)).text();
});

afterAll(async () => {
  await agent?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The agent's address as `host:port`. */
const hostPort = () => new URL(agent.origin).host;

describe("--json: ProtoJSON on stdout", () => {
  it("task get prints exactly the task's ProtoJSON; stream prints one StreamResponse per line", async () => {
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: agent.jsonRpcUrl }));
    const sent = await client.sendMessage({ message: userMessage("count 2") });
    const task = sent.payload.case === "task" ? sent.payload.value : undefined;
    expect(task).toBeDefined();
    const [get, stream] = await Promise.all([
      runCli(["task", "get", agent.origin, task!.id, "--json"]),
      runCli(["stream", agent.origin, "count 2", "--json", "--binding", "http+json"]),
    ]);
    expect(get.code).toBe(0);
    expect(JSON.parse(get.stdout)).toEqual(toProtoJson(await client.getTask({ id: task!.id })));
    expect(stream.code).toBe(0);
    const lines = stream.stdout.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) {
      // Each line is one spec-shaped StreamResponse that reads back as one.
      expect(toProtoJson(fromProtoJson(StreamResponseSchema, JSON.parse(line)))).toEqual(JSON.parse(line));
    }
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } });
  });
});

describe("-v: the wire log on stderr, without secrets", () => {
  const TOKEN = "tok/en+very=secret&42";
  const USER = "alice";
  /** Every form the token could be printed in. */
  const forms = (secret: string) => [
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).toLowerCase(),
    Buffer.from(secret).toString("base64"),
    Buffer.from(secret).toString("base64url"),
    Buffer.from(`${USER}:${secret}`).toString("base64"),
    Buffer.from(`${USER}:${secret}`).toString("base64").slice(0, 12),
  ];
  const expectNoSecret = (text: string) => {
    for (const f of forms(TOKEN)) expect(text, f).not.toContain(f);
  };

  it("logs method, URL, status, masked headers and timing on every binding; the token never shows, from --token, A2A_TOKEN or Basic", async () => {
    const basic = `Basic ${Buffer.from(`${USER}:${TOKEN}`).toString("base64")}`;
    const runs = await Promise.all([
      // --no-wait: SendMessage, a unary call (send streams to an agent that streams).
      runCli(["send", agent.origin, "echo hi", "-v", "--token", TOKEN, "--no-wait"]),
      runCli(["send", agent.origin, "count 1", "--verbose", "--binding", "GRPC", "--no-wait"], { env: { A2A_TOKEN: TOKEN } }),
      runCli(["stream", agent.origin, "count 2", "-v", "--binding", "HTTP+JSON", "--header", `Authorization: ${basic}`]),
      runCli(["send", agent.origin, "echo hi", "-v", "--header", `Cookie: session=${encodeURIComponent(TOKEN)}`]),
      runCli(["stream", agent.origin, "count 2", "-v", "--binding", "grpc", "--token", TOKEN]),
    ]);
    const [jsonrpc, grpc, rest, cookie, grpcStream] = runs;
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expectNoSecret(r.stdout + r.stderr);
      // Only results on stdout.
      expect(r.stdout).not.toMatch(/^[<>*] /m);
      expect(r.stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json$/m);
      expect(r.stderr).toMatch(/^< 200 OK \(\d+\.\d ms\)$/m);
      expect(r.stderr).toContain("> a2a-version: 1.0");
    }
    expect(jsonrpc.stderr).toContain(`> POST ${agent.jsonRpcUrl}`);
    expect(jsonrpc.stderr).toContain("> authorization: ***");
    expect(jsonrpc.stderr).toContain("* SendMessage");
    expect(jsonrpc.stderr).toMatch(/^< body ended: \d+ bytes after \d+\.\d ms$/m);
    expect(grpc.stderr).toContain(`> POST http://${agent.grpcAddress}/lf.a2a.v1.A2AService/SendMessage (gRPC)`);
    expect(grpc.stderr).toContain("> authorization: ***");
    expect(grpc.stderr).toMatch(/^< grpc-status: 0$/m);
    expect(rest.stderr).toContain("* SendStreamingMessage (stream)");
    expect(rest.stderr).toContain(`> POST ${agent.restUrl}/message:stream`);
    expect(rest.stderr).toContain("> authorization: ***");
    expect(cookie.stderr).toContain("> cookie: ***");
    // A gRPC stream's end: how many messages (the client closes it after the final state).
    expect(grpcStream.stderr).toMatch(/^< stream (ended|closed by the client): [4-9] messages after \d+\.\d ms$/m);
  });

  it("masks a token in the target URL and what a hostile server echoes back, in every encoding", async () => {
    // Echoes the credentials it got in its response headers and its error body.
    const server: Server = createServer((req, res) => {
      const got = `${req.headers.authorization ?? ""} ${req.url ?? ""}`;
      res
        .writeHead(404, {
          "content-type": "text/plain",
          "set-cookie": `sid=${TOKEN}`,
          "x-echo": got,
          "x-echo-b64": Buffer.from(got).toString("base64"),
        })
        .end(`no card for ${got}`);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}/card.json?api_key=${encodeURIComponent(TOKEN)}`;
      const [inUrl, fromEnv] = await Promise.all([
        runCli(["card", url, "-v"]),
        runCli(["card", `127.0.0.1:${port}`, "-v", "--json"], { env: { A2A_TOKEN: TOKEN } }),
      ]);
      for (const r of [inUrl, fromEnv]) {
        expect(r.code).toBe(EXIT.notFound);
        expect(r.stderr).toMatch(/^< 404 Not Found/m);
        expect(r.stderr).toContain("< set-cookie: ***");
        expectNoSecret(r.stdout + r.stderr);
      }
      expect(inUrl.stderr).toContain(`> GET http://127.0.0.1:${port}/card.json?api_key=***`);
      expect(fromEnv.stderr).toContain("> authorization: ***");
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("prints nothing of the kind without -v", async () => {
    const quiet = await runCli(["send", agent.origin, "echo hi"]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe(`via JSONRPC 1.0 ${agent.jsonRpcUrl}\n`);
  });
});

describe("targets: host:port and card files", () => {
  it("reaches the agent at host:port (http on loopback) and through its card in a file, by path or file: URL", async () => {
    const file = join(dir, "card.json");
    await writeFile(file, cardText);
    const [byHostPort, byPath, byFileUrl, cardOfFile] = await Promise.all([
      runCli(["send", hostPort(), "echo by host and port"]),
      runCli(["send", file, "echo by file", "--binding", "grpc"]),
      runCli(["send", pathToFileURL(file).href, "echo by file url"]),
      runCli(["card", file, "--verify"]),
    ]);
    expect(byHostPort.code, byHostPort.stderr).toBe(0);
    expect(byHostPort.stdout).toContain("by host and port");
    expect(byPath.code, byPath.stderr).toBe(0);
    expect(byPath.stderr).toContain(`via GRPC 1.0 ${agent.grpcAddress}`);
    expect(byPath.stdout).toContain("by file");
    expect(byFileUrl.code, byFileUrl.stderr).toBe(0);
    // The file's signature verifies with the key set of the agent its interfaces name.
    expect(cardOfFile.code, cardOfFile.stderr).toBe(0);
    expect(cardOfFile.stdout).toContain(`verified: kid ${agent.signingKid}, ES256, key from key set ${agent.jwksUrl}`);
    expect(cardOfFile.stdout).toContain(`card ${file}`);
  });

  it("holds a card file to a fetched card's checks: a typed error naming the file and the field, a tampered signature refused", async () => {
    const notACard = join(dir, "not-a-card.json");
    const notJson = join(dir, "not-json.json");
    const tampered = join(dir, "tampered.json");
    await writeFile(notACard, JSON.stringify({ name: "x", description: "y" }));
    await writeFile(notJson, "{ nope");
    await writeFile(tampered, JSON.stringify({ ...JSON.parse(cardText), description: "changed after signing" }));
    const withBom = join(dir, "bom.json");
    await writeFile(withBom, `\uFEFF${cardText}`);
    const [fields, json, signature, missing, endless, directory, bom] = await Promise.all([
      runCli(["send", notACard, "hi", "--json"]),
      runCli(["card", notJson]),
      runCli(["send", tampered, "echo hi"]),
      runCli(["card", join(dir, "absent.json")]),
      // A device that never ends is read only up to the card size limit.
      runCli(["card", "/dev/zero"]),
      runCli(["card", `${dir}/`]),
      runCli(["card", withBom]),
    ]);
    expect(endless.code).toBe(EXIT.protocol);
    expect(endless.stderr).toContain("InvalidAgentCardError: the Agent Card at /dev/zero is larger than 1048576 bytes");
    expect(directory.code).toBe(EXIT.notFound);
    expect(directory.stderr).toContain("(EISDIR)");
    expect(bom.code, bom.stderr).toBe(0);
    expect(fields.code).toBe(EXIT.protocol);
    expect(JSON.parse(fields.stderr)).toMatchObject({ error: { name: "InvalidAgentCardError", exitCode: EXIT.protocol } });
    expect(fields.stderr).toContain(`the Agent Card at ${notACard} lacks required fields: `);
    expect(fields.stderr).toContain("supportedInterfaces");
    expect(json.code).toBe(EXIT.protocol);
    expect(json.stderr).toContain(`InvalidAgentCardError: the Agent Card at ${notJson} is not valid JSON`);
    expect(signature.code).toBe(EXIT.protocol);
    expect(signature.stderr).toContain("AgentCardVerificationError");
    expect(signature.stdout).toBe("");
    expect(missing.code).toBe(EXIT.notFound);
    expect(missing.stderr).toContain(`AgentCardNotFoundError: no Agent Card in the file ${join(dir, "absent.json")} (ENOENT)`);
  });
});

describe("a task that waits for input", () => {
  /** The words of the one command line the hint prints (POSIX single quotes only, as the CLI writes them). */
  function hintedCommand(stderr: string): string[] {
    const line = stderr.split("\n").find((l) => l.startsWith("  a2a send "));
    expect(line, stderr).toBeDefined();
    const words: string[] = [];
    for (const m of line!.trim().matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g))
      words.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!);
    return words;
  }

  it("prints on stderr the command that continues it (same target and binding, no token), which does", async () => {
    const run = await runCli(["send", hostPort(), "input", "--binding", "HTTP+JSON", "--token", "tok-never-printed"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^task \S+ INPUT_REQUIRED$/m);
    const id = /^task (\S+) INPUT_REQUIRED$/m.exec(run.stdout)![1]!;
    expect(run.stderr).toContain(`task ${id} waits for input: need more`);
    expect(run.stderr).toContain("put the token in A2A_TOKEN");
    expect(run.stdout + run.stderr).not.toContain("tok-never-printed");
    const words = hintedCommand(run.stderr);
    expect(words.slice(0, 5)).toEqual(["a2a", "send", hostPort(), "--task", id]);
    expect(words).toContain("--context");
    expect(words.slice(-3)).toEqual(["--binding", "HTTP+JSON", "your reply"]);

    // The command as printed, with a reply, continues the same task to its end.
    const continued = await runCli([...words.slice(1, -1), "count 1"], { env: { A2A_TOKEN: "tok-never-printed" } });
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stdout).toMatch(new RegExp(`^task ${id} COMPLETED$`, "m"));
    expect(continued.stderr).not.toContain("continue it with");
  });

  it("streams say it too; with --json as one JSON line on stderr, stdout holding only events", async () => {
    const run = await runCli(["stream", agent.origin, "input", "--json"]);
    expect(run.code).toBe(0);
    for (const line of run.stdout.trimEnd().split("\n")) expect(Object.keys(JSON.parse(line))).toHaveLength(1);
    const hint = JSON.parse(run.stderr.trim()) as { continue: { taskId: string; state: string; command: string } };
    expect(hint.continue.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(hint.continue.command).toContain(`a2a send ${agent.origin} --task ${hint.continue.taskId} --context `);
    expect(hint.continue.command).toMatch(/ --json 'your reply'$/);
  });
});

describe("a stream that drops for good", () => {
  /** A card file whose one interface is behind a proxy that cuts the first connection mid-stream and resets every later one at once. */
  async function lostAgent() {
    const proxy = await startChaosProxy(Number(new URL(agent.origin).port), (i) =>
      i === 0 ? { cutAfter: 1400, fault: "reset" } : { cutAfter: 0, fault: "reset" },
    );
    const card = JSON.parse(cardText) as Record<string, unknown>;
    delete card.signatures;
    card.supportedInterfaces = [{ url: `http://127.0.0.1:${proxy.port}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }];
    const file = join(dir, `proxied-card-${proxy.port}.json`);
    await writeFile(file, JSON.stringify(card));
    return { proxy, file };
  }

  it("says so on stderr with the task id and reason, and exits 8 (not 0, not 5)", async () => {
    const [a, b] = await Promise.all([lostAgent(), lostAgent()]);
    try {
      const [human, json] = await Promise.all([
        runCli(["stream", a.file, "count 20 every 50", "--timeout", "800"]),
        runCli(["stream", b.file, "count 20 every 50", "--timeout", "800", "--json"]),
      ]);
      expect(a.proxy.faults).toBeGreaterThanOrEqual(2);
      expect(human.code).toBe(EXIT.streamLost);
      const id = /^\+\s*\d+ms task (\S+) SUBMITTED$/m.exec(human.stdout)?.[1];
      expect(id, human.stdout).toBeDefined();
      expect(human.stderr).toContain(`a2a: the stream of task ${id} dropped and could not be resumed`);
      expect(human.stderr).toContain("StreamResumeError");
      expect(human.stderr).toContain(`  a2a task subscribe ${a.file} ${id}`);
      expect(human.stdout).not.toContain("dropped");

      expect(json.code).toBe(EXIT.streamLost);
      const taskId = (JSON.parse(json.stdout.split("\n")[0]!) as { task: { id: string } }).task.id;
      const lines = json.stderr
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, { taskId?: string; command?: string }>);
      expect(lines.find((l) => l.streamLost)?.streamLost).toMatchObject({ taskId, command: `a2a task subscribe ${b.file} ${taskId}` });
      expect(lines.at(-1)!.error).toMatchObject({ name: "StreamResumeError", exitCode: EXIT.streamLost });
    } finally {
      await Promise.all([a.proxy.close(), b.proxy.close()]);
    }
  });
});

// The `a2a` command line as parsed, without spawning a process.
import { execFileSync } from "node:child_process";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import * as v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { UsageError, parseCommandLine } from "../../../src/cli/args.js";
import { EXIT } from "../../../src/cli/exit-codes.js";
import { MAX_MESSAGE_INPUT_BYTES } from "../../../src/cli/message-input.js";
import { run } from "../../../src/cli/run.js";
import { parseTarget } from "../../../src/cli/target.js";
import { continueCommand, printContinueHint, shellQuote } from "../../../src/cli/continue-hint.js";
import { Output } from "../../../src/cli/output.js";
import { create } from "@bufbuild/protobuf";
import { TaskSchema, TaskState } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { cardJson } from "../../support/cards.js";

const URL = "http://127.0.0.1:1";

function flagsOf(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseCommandLine(argv, env);
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

describe("--timeout", () => {
  it("takes milliseconds", () => {
    expect(flagsOf(["task", "get", URL, "t-1", "--timeout", "2500"]).timeoutMs).toBe(2500);
    expect(flagsOf(["card", URL]).timeoutMs).toBeUndefined();
  });

  it.each(["0", "-5", "1.5", "5s", "", "abc", "99999999999999999999"])("rejects %j with a usage error", (value) => {
    expect(() => parseCommandLine(["card", URL, `--timeout=${value}`])).toThrow(/--timeout takes a whole number of at least 1/);
  });
});

describe("the token", () => {
  const TOKEN = "env-token-8d1f";

  it("comes from A2A_TOKEN when --token is absent; the flag wins; an empty variable is unset", () => {
    expect(flagsOf(["card", URL], { A2A_TOKEN: TOKEN }).headers.Authorization).toBe(`Bearer ${TOKEN}`);
    expect(flagsOf(["card", URL], { A2A_TOKEN: TOKEN }).secrets).toContain(TOKEN);
    expect(flagsOf(["card", URL, "--token", "flag-token"], { A2A_TOKEN: TOKEN }).headers.Authorization).toBe("Bearer flag-token");
    expect(flagsOf(["card", URL], { A2A_TOKEN: "" }).headers.Authorization).toBeUndefined();
    expect(flagsOf(["card", URL]).headers.Authorization).toBeUndefined();
  });

  it("from A2A_TOKEN is sent, and not printed when the server echoes it", async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(404, { "content-type": "text/plain" }).end(`no card for ${req.headers.authorization}`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const stdout = new Sink();
      const stderr = new Sink();
      const code = await run(["card", `http://127.0.0.1:${port}`], { stdout, stderr, env: { A2A_TOKEN: TOKEN } });
      expect(code).toBe(EXIT.notFound);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((h) => h === `Bearer ${TOKEN}`)).toBe(true);
      expect(stdout.text + stderr.text).not.toContain(TOKEN);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("--timeout, run", () => {
  it("ends card resolution against a server that never answers, exit 5, naming the limit", async () => {
    const sockets = new Set<Socket>();
    const server = createServer(() => {}); // accepts, never answers
    server.on("connection", (s) => sockets.add(s));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const stdout = new Sink();
      const stderr = new Sink();
      const code = await run(["card", `http://127.0.0.1:${port}`, "--timeout", "150"], { stdout, stderr, env: {} });
      expect(code).toBe(EXIT.connection);
      expect(stderr.text).toMatch(/CallTimeoutError: .*within 150 ms/);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("text from stdin, run", () => {
  it("stops reading an unended stdin on Ctrl-C, exit 130", async () => {
    const controller = new AbortController();
    // Stdin that never ends (a terminal without Ctrl-D); Ctrl-C comes once it is read.
    const stdin = new Readable({ read: () => controller.abort() });
    const stderr = new Sink();
    const code = await run(["send", URL, "-", "--timeout", "5000"], {
      stdin,
      stdout: new Sink(),
      stderr,
      env: {},
      signal: controller.signal,
    });
    expect(code).toBe(EXIT.interrupted);
    expect(stderr.text).toBe("interrupted\n");
  });
});

describe("message input, within its limit", () => {
  const LIMIT = MAX_MESSAGE_INPUT_BYTES;

  it("stdin that goes on past 16 MiB is a usage error naming the limit, and is not read on", async () => {
    // What `yes | a2a send <url> -` pipes: far more than the limit (it ends, so that a client that reads it all still finishes).
    const chunk = Buffer.alloc(64 * 1024, "y");
    let given = 0;
    const stdin = new Readable({
      read() {
        given += chunk.length;
        this.push(given > 4 * LIMIT ? null : chunk);
      },
    });
    const stderr = new Sink();
    const code = await run(["send", URL, "-"], { stdin, stdout: new Sink(), stderr, env: {} });
    expect(code).toBe(EXIT.usage);
    expect(stderr.text).toContain(`stdin (-) holds more than ${LIMIT} bytes, the most a message's text and files may hold together`);
    // Read up to the limit and a few chunks of the stream's buffer, no further.
    expect(given).toBeLessThan(LIMIT + 8 * chunk.length);
  });

  it("--file and the text count together: past the limit, a usage error naming the file, nothing sent", async () => {
    const dir = await mkdtemp(join(tmpdir(), "a2a-input-"));
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const path = join(dir, "big.bin");
      // The file alone is at the limit; with the text "hi" the message is over it.
      await writeFile(path, Buffer.alloc(LIMIT));
      const stderr = new Sink();
      const code = await run(["send", `http://127.0.0.1:${port}`, "hi", "--file", path], { stdout: new Sink(), stderr, env: {} });
      expect(code).toBe(EXIT.usage);
      expect(stderr.text).toContain(`--file: ${path} takes the message past ${LIMIT} bytes`);
      expect(requests).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a --file that never ends (/dev/zero) is read up to the limit only", async () => {
    const stderr = new Sink();
    const code = await run(["send", URL, "hi", "--file", "/dev/zero"], { stdout: new Sink(), stderr, env: {} });
    expect(code).toBe(EXIT.usage);
    expect(stderr.text).toContain(`--file: /dev/zero takes the message past ${LIMIT} bytes`);
  });
});

describe("a stream that runs long", () => {
  /** Stdout that keeps nothing: it counts lines, and says when a number of them has been printed. */
  class LineCounter extends Writable {
    lines = 0;
    /** The last complete line, and what came after it. */
    last = "";
    private open = "";
    private waiting: { n: number; resolve: () => void }[] = [];
    override _write(chunk: Buffer, _encoding: string, done: () => void): void {
      const pieces = (this.open + chunk.toString()).split("\n");
      this.open = pieces.pop()!;
      this.lines += pieces.length;
      if (pieces.length > 0) this.last = pieces.at(-1)!;
      this.waiting = this.waiting.filter((w) => (w.n <= this.lines ? void w.resolve() : true));
      done();
    }
    printed(n: number): Promise<void> {
      return n <= this.lines ? Promise.resolve() : new Promise((resolve) => this.waiting.push({ n, resolve }));
    }
  }

  it("a2a stream keeps about its closing line of what the agent sent, not every appended chunk and metadata key", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const CHUNKS = 600;
    const stdout = new LineCounter();
    let before = 0;
    let held = 0;
    const server = createServer((req, res) => {
      if (req.method === "GET") {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a`;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(cardJson({ supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] })));
        return;
      }
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", async () => {
        const { id } = JSON.parse(body) as { id: number };
        const send = (result: unknown) => res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`);
        res.writeHead(200, { "content-type": "text/event-stream" });
        send({ task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } });
        await stdout.printed(1);
        gc();
        before = process.memoryUsage().heapUsed;
        // 16 KiB of text and a metadata key of 4 KiB per chunk: 12 MiB over the stream. Each is sent once the one before is printed, so nothing waits in buffers.
        for (let i = 0; i < CHUNKS; i++) {
          const text = `${i}:`.padEnd(16 * 1024, "x");
          send({ artifactUpdate: { taskId: "t1", contextId: "c1", append: i > 0, artifact: { artifactId: "a1", parts: [{ text }] } } });
          send({
            statusUpdate: {
              taskId: "t1",
              contextId: "c1",
              status: { state: "TASK_STATE_WORKING" },
              metadata: { [`k${i}`]: "m".repeat(4096) },
            },
          });
          await stdout.printed(2 + 2 * i + 1);
        }
        gc();
        held = process.memoryUsage().heapUsed - before;
        send({ statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const stderr = new Sink();
      const code = await run(["stream", `http://127.0.0.1:${port}`, "go"], { stdout, stderr, env: {} });
      expect(code, stderr.text).toBe(EXIT.ok);
      // Kept whole, the chunks and metadata held some 12 MiB until the stream ended.
      expect(held).toBeLessThan(4 * 1024 * 1024);
      // The closing line names the task and its artifact's start, marked as cut.
      expect(stdout.last).toMatch(/^task t1 .*: 0:x+…$/);
      expect(stdout.last.length).toBeLessThan(5000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("targets", () => {
  it("reads host:port as http on loopback and https elsewhere, keeping a path", () => {
    expect(parseTarget("127.0.0.1:41241", "card")).toEqual({ kind: "url", url: "http://127.0.0.1:41241" });
    expect(parseTarget("localhost:8080/agent", "card")).toEqual({ kind: "url", url: "http://localhost:8080/agent" });
    expect(parseTarget("[::1]:9", "card")).toEqual({ kind: "url", url: "http://[::1]:9" });
    expect(parseTarget("agent.example.com:443", "card")).toEqual({ kind: "url", url: "https://agent.example.com:443" });
    expect(parseTarget("10.0.0.7:80", "card")).toEqual({ kind: "url", url: "https://10.0.0.7:80" });
    expect(parseTarget("http://agent.example.com:80", "card")).toEqual({ kind: "url", url: "http://agent.example.com:80" });
  });

  it("reads paths and file: URLs as card files", () => {
    expect(parseTarget("./card.json", "card")).toEqual({ kind: "file", path: "./card.json" });
    expect(parseTarget("/tmp/agent card", "card")).toEqual({ kind: "file", path: "/tmp/agent card" });
    expect(parseTarget("card.JSON", "card")).toEqual({ kind: "file", path: "card.JSON" });
    expect(parseTarget("file:///tmp/a%20b.json", "card")).toEqual({ kind: "file", path: "/tmp/a b.json" });
  });

  it.each([
    ["agent.example.com", /host:port, or a card file/],
    ["127.0.0.1:0", /port 0 is not in 1\.\.65535/],
    ["127.0.0.1:70000", /port 70000 is not in 1\.\.65535/],
    ["ftp://agent.example.com", /must be an http or https URL/],
    ["file://remote-host/card.json", /not a valid file: URL/],
  ])("refuses %j with a usage error", (arg, message) => {
    expect(() => parseCommandLine(["card", arg])).toThrow(UsageError);
    expect(() => parseCommandLine(["card", arg])).toThrow(message);
  });

  it("counts the target URL's user info and query values as secrets, as sent and decoded", () => {
    const secrets = flagsOf(["card", "https://bob:pa%2Fss@agent.example.com/card.json?api_key=k%2By-123"]).secrets;
    expect(secrets).toEqual(expect.arrayContaining(["pa%2Fss", "pa/ss", "k%2By-123", "k+y-123"]));
  });
});

describe("-v", () => {
  it("is --verbose, off by default", () => {
    expect(flagsOf(["card", URL, "-v"]).verbose).toBe(true);
    expect(flagsOf(["card", URL, "--verbose"]).verbose).toBe(true);
    expect(flagsOf(["card", URL]).verbose).toBe(false);
  });

  it("counts the decoded parts of a Basic header as secrets", () => {
    const basic = Buffer.from("alice:pw-basic-77").toString("base64");
    expect(flagsOf(["card", URL, "--header", `Authorization: Basic ${basic}`]).secrets).toEqual(
      expect.arrayContaining([basic, "alice:pw-basic-77", "pw-basic-77"]),
    );
  });
});

describe("the command that continues a task", () => {
  it("quotes words for a POSIX shell", () => {
    expect(shellQuote("127.0.0.1:41241")).toBe("127.0.0.1:41241");
    expect(shellQuote("https://a.example/x?y=1&z=2")).toBe("'https://a.example/x?y=1&z=2'");
    expect(shellQuote("it's $HOME `x`")).toBe(`'it'\\''s $HOME \`x\`'`);
    expect(shellQuote("")).toBe("''");
  });

  it("repeats the target and the interface flags, never the token or headers", () => {
    const parsed = parseCommandLine(
      ["send", "./my card.json", "hi", "--token", "tok-xyz-1", "--header", "X-K: v-secret", "--binding", "grpc", "--a2a-version", "1.0"],
      {},
    );
    if (parsed.kind !== "run") throw new Error("expected a command");
    const task = create(TaskSchema, { id: "t-1", contextId: "c 2", status: { state: TaskState.INPUT_REQUIRED } });
    const command = continueCommand({ ...parsed, out: new Output({ stdout: new Sink(), stderr: new Sink() }) }, task);
    expect(command).toBe("a2a send './my card.json' --task t-1 --context 'c 2' --binding grpc --a2a-version 1.0 'your reply'");
  });
});

describe("files that never end, run", () => {
  it.each([
    ["--file", (fifo: string) => ["send", URL, "hi", "--file", fifo]],
    ["--jwks", (fifo: string) => ["card", URL, "--verify", "--jwks", fifo]],
    ["a card file", (fifo: string) => ["card", fifo]],
  ])("Ctrl-C ends the read of %s from a named pipe whose writer never writes: exit 130", async (_, argv) => {
    const dir = await mkdtemp(join(tmpdir(), "a2a-fifo-"));
    const fifo = join(dir, "never-ends");
    execFileSync("mkfifo", [fifo]);
    const controller = new AbortController();
    // Opening the pipe for writing completes when the command opens it to read: Ctrl-C comes then.
    const writer = open(fifo, "w").then((handle) => {
      controller.abort();
      return handle;
    });
    try {
      const stderr = new Sink();
      const code = await run(argv(fifo), { stdout: new Sink(), stderr, env: {}, signal: controller.signal });
      expect(code).toBe(EXIT.interrupted);
      expect(stderr.text).toBe("interrupted\n");
    } finally {
      // The read left behind ends with the pipe.
      await (await writer).close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("--jwks, run", () => {
  it("a file that is not JSON is refused without quoting it; one too large is not read whole", async () => {
    const dir = await mkdtemp(join(tmpdir(), "a2a-jwks-"));
    try {
      const env = join(dir, ".env");
      await writeFile(env, "API_KEY=sk-live-51f0c9\n");
      const big = join(dir, "big.json");
      await writeFile(big, `{"keys": []}${" ".repeat(2 * 1024 * 1024)}`);
      const results = [];
      for (const file of [env, big]) {
        const stderr = new Sink();
        const code = await run(["card", URL, "--verify", "--jwks", file], { stdout: new Sink(), stderr, env: {} });
        results.push({ code, stderr: stderr.text });
      }
      expect(results[0]!.code).toBe(EXIT.usage);
      expect(results[0]!.stderr).toContain(`--jwks: ${env} is not JSON`);
      expect(results[0]!.stderr).not.toMatch(/API_KEY|sk-live/);
      expect(results[1]!.code).toBe(EXIT.usage);
      expect(results[1]!.stderr).toContain(`--jwks: ${big} is larger than 1048576 bytes`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("--json, on errors too", () => {
  const runJson = async (argv: string[], options: { stdin?: Readable; signal?: AbortSignal } = {}) => {
    const stdout = new Sink();
    const stderr = new Sink();
    const code = await run(argv, { stdout, stderr, env: {}, ...options });
    return { code, stdout: stdout.text, lines: stderr.text.trimEnd().split("\n") };
  };

  it("a usage error is one JSON line on stderr, exit 2, stdout empty", async () => {
    for (const argv of [
      ["send", "--json", "--bogus"],
      ["bogus", "--json"],
      ["send", URL, "--json"],
      ["task", "get", URL, "t-1", "--json", "--history", "many"],
      ["card", "not a url", "--json"],
    ]) {
      const { code, stdout, lines } = await runJson(argv);
      expect(code).toBe(EXIT.usage);
      expect(stdout).toBe("");
      expect(lines).toHaveLength(1);
      const { error } = JSON.parse(lines[0]!) as { error: Record<string, unknown> };
      expect(error).toMatchObject({ name: "UsageError", exitCode: EXIT.usage });
      expect(error.message).toEqual(expect.any(String));
      expect(error.hint).toMatch(/--help" for usage/);
    }
    // After "--", "--json" is an argument: the error is for people.
    const text = await runJson(["send", URL, "hi", "--", "--json"]);
    expect(text.lines[0]).toMatch(/^a2a: too many arguments/);
  });

  it("Ctrl-C is one JSON line on stderr, exit 130", async () => {
    const controller = new AbortController();
    const stdin = new Readable({ read: () => controller.abort() });
    const { code, lines } = await runJson(["send", URL, "-", "--json"], { stdin, signal: controller.signal });
    expect(code).toBe(EXIT.interrupted);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { error: { name: "Interrupted", message: "interrupted", exitCode: EXIT.interrupted } },
    ]);
  });

  it("stays JSON when a secret is a number it holds: the number is masked as a string", () => {
    const stdout = new Sink();
    const stderr = new Sink();
    const out = new Output({ stdout, stderr, json: true, secrets: ["4096"] });
    out.jsonLine({ totalSize: 4096, tasks: [{ data: { n: 40961, m: 12, note: "key 4096" } }] }, true);
    out.jsonError({ error: { message: "rejected 4096", httpStatus: 4096 } });
    expect(JSON.parse(stdout.text)).toEqual({ totalSize: "***", tasks: [{ data: { n: "***1", m: 12, note: "key ***" } }] });
    expect(JSON.parse(stderr.text)).toEqual({ error: { message: "rejected ***", httpStatus: "***" } });
  });
});

describe("output for people", () => {
  it("keeps its own colours on a terminal and turns every other control character into ?", () => {
    const stdout = Object.assign(new Sink(), { isTTY: true });
    const stderr = new Sink();
    const out = new Output({ stdout, stderr, env: {} });
    out.line(`${out.red("FAILED")} \x1b[8mhidden\x1b[31m \u009b2J\x07`);
    out.error(`${out.bold("a2a:")} \x1b]0;title\x07`);
    expect(stdout.text).toBe("\x1b[31mFAILED\x1b[39m ?[8mhidden\x1b[31m ?2J?\n");
    expect(stderr.text).toBe("\x1b[1ma2a:\x1b[22m ?]0;title?\n");
    // Without colours, none is let through.
    const plain = new Sink();
    new Output({ stdout: plain, env: {} }).line("\x1b[31mred\x1b[39m");
    expect(plain.text).toBe("?[31mred?[39m\n");
  });
});

describe("the continue hint", () => {
  function hint(state: TaskState, argv: string[], json = false) {
    const parsed = parseCommandLine(argv, {});
    if (parsed.kind !== "run") throw new Error("expected a command");
    const stderr = new Sink();
    const task = create(TaskSchema, { id: "t-9", contextId: "c-9", status: { state } });
    printContinueHint({ ...parsed, out: new Output({ stdout: new Sink(), stderr, json, secrets: parsed.flags.secrets }) }, task);
    return stderr.text;
  }

  it("on AUTH_REQUIRED asks for credentials, naming A2A_TOKEN, and never repeats the token", () => {
    const text = hint(TaskState.AUTH_REQUIRED, ["send", URL, "hi", "--token", "tok-auth-5"]);
    expect(text).toContain("task t-9 waits for authorization (provide credentials, e.g. A2A_TOKEN)");
    expect(text).toContain(`  a2a send ${URL} --task t-9 --context c-9 'your reply'`);
    expect(text).toContain("put the token in A2A_TOKEN");
    expect(text).not.toContain("tok-auth-5");
  });

  it("says nothing for a task that does not wait on the caller", () => {
    for (const state of [TaskState.WORKING, TaskState.COMPLETED, TaskState.FAILED]) expect(hint(state, ["send", URL, "hi"])).toBe("");
  });

  it("is one JSON line with --json", () => {
    const line = JSON.parse(hint(TaskState.INPUT_REQUIRED, ["send", URL, "hi", "--json"], true)) as { continue: Record<string, unknown> };
    expect(line.continue).toMatchObject({ taskId: "t-9", contextId: "c-9", state: "TASK_STATE_INPUT_REQUIRED" });
    expect(line.continue.command).toBe(`a2a send ${URL} --task t-9 --context c-9 --json 'your reply'`);
  });
});

class Sink extends Writable {
  text = "";
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe("unknown names", () => {
  const usageMessage = (argv: string[]): string => {
    try {
      parseCommandLine(argv, {});
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return (e as UsageError).message;
    }
    throw new Error(`${argv.join(" ")} parsed`);
  };

  it("suggests the nearest flag of the command for a misspelt one, global or its own", () => {
    expect(usageMessage(["send", URL, "hi", "--timout", "5"])).toBe("Unknown option '--timout'; did you mean --timeout?");
    expect(usageMessage(["send", URL, "hi", "--no-wiat"])).toBe("Unknown option '--no-wiat'; did you mean --no-wait?");
    expect(usageMessage(["task", "get", URL, "t1", "--wiat"])).toBe("Unknown option '--wiat'; did you mean --wait?");
    expect(usageMessage(["task", "list", URL, "--page-szie=3"])).toBe("Unknown option '--page-szie'; did you mean --page-size?");
  });

  it("suggests only the command's own flags, and nothing when none is near", () => {
    // --wait is a flag of task get, not of send.
    expect(usageMessage(["send", URL, "hi", "--wait"])).toBe("Unknown option '--wait'");
    expect(usageMessage(["card", URL, "--bogus=secret-value"])).toBe("Unknown option '--bogus'");
    expect(usageMessage(["card", URL, "-x"])).toBe("Unknown option '-x'");
  });

  it("suggests the nearest command and subcommand", () => {
    expect(usageMessage(["sned", URL, "hi"])).toBe(
      `unknown command "sned" (expected one of: card, send, stream, task, push); did you mean send?`,
    );
    expect(usageMessage(["tsak", "get", URL, "t1"])).toMatch(/; did you mean task\?$/);
    expect(usageMessage(["task", "lsit", URL])).toBe(
      `unknown subcommand "task lsit" (expected one of: get, list, cancel, subscribe); did you mean task list?`,
    );
    expect(usageMessage(["frobnicate", URL])).toBe(`unknown command "frobnicate" (expected one of: card, send, stream, task, push)`);
  });
});

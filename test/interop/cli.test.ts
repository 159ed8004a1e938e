// The `a2a` CLI end to end: each test runs it as a child process
// (`node --import tsx src/cli/main.ts ...`) against the local agent, and, for
// what depends on the peer's routes, against @a2a-js/sdk 1.0.0-beta.0 too.
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { startChaosProxy, type ChaosProxy } from "../../demo/chaos-proxy.js";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { A2AClient, TaskState, createJsonRpcTransport, userMessage } from "../../src/index.js";
import { SDK_1_0_BETA } from "../support/peers.js";
import { runCli } from "../support/run-cli.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "src/cli/main.ts");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout's lines, each with when it arrived (ms since start). */
  lines: Array<{ text: string; at: number }>;
}

function a2a(args: string[], env: Record<string, string> = {}, onLine?: (text: string) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`a2a ${args.join(" ")} timed out; stdout: ${stdout}; stderr: ${stderr}`));
    }, 20_000);
    let stdout = "";
    let stderr = "";
    let partial = "";
    const lines: Run["lines"] = [];
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const parts = (partial + chunk).split("\n");
      partial = parts.pop()!;
      for (const text of parts) {
        lines.push({ text, at: Date.now() - started });
        onLine?.(text);
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, lines });
    });
  });
}

const SECRET = { token: "tok-very-secret-1", header: "hdr-very-secret-2" };

let agent: LocalAgent;
let dir: string;

beforeAll(async () => {
  agent = await startLocalAgent();
  dir = await mkdtemp(join(tmpdir(), "a2a-cli-"));
});

afterAll(async () => {
  await agent?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a2a --help and usage errors", () => {
  it("documents every command, the flags and the exit codes", async () => {
    const [main, taskGet, pushCreate] = await Promise.all([
      a2a(["--help"]),
      a2a(["task", "get", "--help"]),
      a2a(["push", "create", "http://127.0.0.1:1", "t", "-h"]),
    ]);
    expect(main.code).toBe(0);
    for (const s of [
      "card <url>",
      "send <url> <text>",
      "stream <url> <text>",
      "task get|list|cancel|subscribe",
      "push create|get|list|delete",
    ]) {
      expect(main.stdout).toContain(s);
    }
    for (const s of ["--binding JSONRPC|HTTP+JSON|GRPC", "--a2a-version", "--header", "--token", "--json", "Exit codes:"]) {
      expect(main.stdout).toContain(s);
    }
    expect(main.stdout).toMatch(/^\s+3\s+not found: TaskNotFoundError/m);
    expect(main.stdout).toMatch(/^\s+2\s+usage/m);
    expect(taskGet.code).toBe(0);
    expect(taskGet.stdout).toContain("Usage: a2a task get <url> <id> [--history n]");
    expect(pushCreate.code).toBe(0);
    expect(pushCreate.stdout).toContain("Usage: a2a push create <url> <taskId> [configId] --push-url u [--push-token t]");
    for (const r of [main, taskGet, pushCreate]) expect(r.stderr).toBe("");
  });

  it("exits 2 with a helpful message on usage errors, without echoing secrets", async () => {
    const [missing, unknown, binding, header, sub, badUrl] = await Promise.all([
      a2a(["send", agent.origin]),
      a2a(["card", agent.origin, "--token", "tok-secret-123", "--bogus=also-secret"]),
      a2a(["send", agent.origin, "hi", "--binding", "SOAP"]),
      a2a(["send", agent.origin, "hi", "--header", "no-colon-secret-value"]),
      a2a(["task", "frobnicate", agent.origin]),
      a2a(["card", "not a url"]),
    ]);
    for (const r of [missing, unknown, binding, header, sub, badUrl]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/--help" for usage/);
    }
    expect(missing.stderr).toContain("missing <text>");
    expect(missing.stderr).toContain(`Run "a2a send --help" for usage.`);
    expect(unknown.stderr).toContain("Unknown option '--bogus'");
    expect(unknown.stderr).not.toContain("secret");
    expect(binding.stderr).toContain("--binding must be one of JSONRPC, HTTP+JSON, GRPC");
    expect(header.stderr).toContain(`--header takes "Name: value"`);
    expect(header.stderr).not.toContain("secret");
    expect(sub.stderr).toContain(`unknown subcommand "task frobnicate"`);
    expect(badUrl.stderr).toContain("<url> must be an absolute http(s) URL");
  });
});

describe("a2a card", () => {
  it("prints the card, verifies it with a JWKS file or its jku, and prints ProtoJSON", async () => {
    const jwks = join(dir, "jwks.json");
    await writeFile(jwks, JSON.stringify(agent.jwks));
    const [human, withFile, withJku, json] = await Promise.all([
      a2a(["card", agent.origin]),
      a2a(["card", agent.origin, "--verify", "--jwks", jwks]),
      a2a(["card", agent.cardUrl, "--verify"]),
      a2a(["card", agent.origin, "--json"]),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("a2a-connect local agent");
    expect(human.stdout).toMatch(/JSONRPC\s+1\.0\s+http:\/\/127\.0\.0\.1:\d+\/a2a\/jsonrpc/);
    expect(human.stdout).toMatch(/HTTP\+JSON\s+1\.0\s+http:\/\/127\.0\.0\.1:\d+\/a2a\/rest/);
    expect(human.stdout).toContain(`GRPC      1.0  ${agent.grpcAddress}`);
    expect(human.stdout).toContain("capabilities streaming, push notifications, extended card");
    expect(human.stdout).toMatch(/^ {2}echo \(Echo\): /m);
    expect(human.stdout).toContain("not checked (use --verify)");

    expect(withFile.code).toBe(0);
    expect(withFile.stdout).toContain(`verified: kid ${agent.signingKid}, ES256, key from the given keys`);
    expect(withJku.code).toBe(0);
    expect(withJku.stdout).toContain(`verified: kid ${agent.signingKid}, ES256, key from key set ${agent.jwksUrl}`);

    expect(json.code).toBe(0);
    const card = JSON.parse(json.stdout) as {
      name: string;
      supportedInterfaces: unknown[];
      signatures: unknown[];
      skills: Array<{ id: string }>;
    };
    expect(card.name).toBe("a2a-connect local agent");
    expect(card.supportedInterfaces).toHaveLength(3);
    expect(card.signatures).toHaveLength(1);
    expect(card.skills.map((s) => s.id)).toContain("echo");
  });

  it("exits 6 when the signature does not verify with the given keys, 3 when there is no card", async () => {
    const other = join(dir, "other-jwks.json");
    await writeFile(other, JSON.stringify({ keys: [{ ...agent.jwks.keys[0], x: agent.jwks.keys[0]!.y, kid: agent.signingKid }] }));
    const noCard = `http://127.0.0.1:${new URL(agent.origin).port}/nowhere/card.json`;
    const [bad, missing] = await Promise.all([a2a(["card", agent.origin, "--verify", "--jwks", other]), a2a(["card", noCard])]);
    expect(bad.code).toBe(6);
    expect(bad.stderr).toContain("AgentCardVerificationError");
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain("AgentCardNotFoundError");
  });
});

describe("a2a send", () => {
  it("prints a direct reply, a finished task, and ProtoJSON with --json, on every binding", async () => {
    const file = join(dir, "note.txt");
    await writeFile(file, "file body");
    const [echo, task, grpc, rest, json] = await Promise.all([
      a2a(["send", agent.origin, "echo hello from the cli", "--token", SECRET.token, "--header", `X-Api-Key: ${SECRET.header}`]),
      a2a(["send", agent.origin, "count 2"]),
      a2a(["send", agent.origin, "count 2", "--binding", "GRPC"]),
      a2a(["send", agent.origin, "echo over rest", "--binding", "HTTP+JSON", "--a2a-version", "1.0"]),
      a2a(["send", agent.origin, "count 1", "--json", "--data", '{"k":[1,2]}', "--file", file]),
    ]);
    expect(echo.code).toBe(0);
    expect(echo.stderr).toContain("via JSONRPC 1.0");
    expect(echo.stdout).not.toContain("via ");
    expect(echo.stdout).toMatch(/^message \(agent\)\n {2}hello from the cli$/m);
    for (const secret of Object.values(SECRET)) expect(echo.stdout + echo.stderr).not.toContain(secret);

    expect(task.code).toBe(0);
    expect(task.stdout).toMatch(/^task \S+ COMPLETED$/m);
    expect(task.stdout).toContain("artifact result: chunk-1 chunk-2");

    expect(grpc.code).toBe(0);
    expect(grpc.stderr).toContain(`via GRPC 1.0 ${agent.grpcAddress}`);
    expect(grpc.stdout).toContain("artifact result: chunk-1 chunk-2");

    expect(rest.code).toBe(0);
    expect(rest.stderr).toContain("via HTTP+JSON 1.0");
    expect(rest.stdout).toContain("over rest");

    expect(json.code).toBe(0);
    const res = JSON.parse(json.stdout) as {
      task: {
        status: { state: string };
        artifacts: Array<{ parts: Array<{ text?: string }> }>;
        history: Array<{ parts: Array<Record<string, unknown>> }>;
      };
    };
    expect(res.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(res.task.artifacts[0]!.parts[0]!.text).toBe("chunk-1");
    const sent = res.task.history[0]!.parts;
    expect(sent[0]).toEqual({ text: "count 1" });
    expect(sent).toContainEqual({ raw: Buffer.from("file body").toString("base64"), filename: "note.txt", mediaType: "text/plain" });
    expect(sent).toContainEqual({ data: { k: [1, 2] } });
  });

  it("exits 5 when the agent cannot be reached, without printing secrets in the error", async () => {
    const down = await a2a([
      "send",
      "http://127.0.0.1:9/",
      "echo hi",
      "--token",
      SECRET.token,
      "--header",
      `X-Api-Key: ${SECRET.header}`,
      "--json",
    ]);
    expect(down.code).toBe(5);
    expect(down.stdout).toBe("");
    expect(JSON.parse(down.stderr)).toMatchObject({ error: { name: "ConnectionError", exitCode: 5 } });
    for (const secret of Object.values(SECRET)) expect(down.stderr).not.toContain(secret);
  });
});

describe("a2a send, in process", () => {
  const runHere = (args: string[], input: string[] = []) => runCli(args, { input });

  it("prints the result on stdout and the 'via' diagnostic on stderr", async () => {
    const { code, stdout, stderr } = await runHere(["send", agent.origin, "echo piped"]);
    expect(code).toBe(0);
    expect(stdout).toBe("message (agent)\n  piped\n");
    expect(stderr).toBe(`via JSONRPC 1.0 ${agent.jsonRpcUrl}\n`);
  });

  it("reads the message text from stdin when the text argument is -", async () => {
    const { code, stdout, stderr } = await runHere(["send", agent.origin, "-", "--json"], ["echo first line\n", "second line\n"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const res = JSON.parse(stdout) as { message: { parts: Array<{ text?: string }> } };
    expect(res.message.parts[0]!.text).toBe("first line\nsecond line");
  });

  it("shows control characters an agent sends as ?, so its text cannot drive the terminal; --json keeps them, escaped", async () => {
    // Clear the screen, retitle the window, write the clipboard, hide what follows (ESC, BEL, C1 CSI).
    const hostile = "\x1b[2J\x1b]0;owned\x07\x1b]52;c;aGk=\x07\x1b[8mhidden\u009b31m\r\nnext\tcol";
    const human = await runHere(["send", agent.origin, `echo ${hostile}`]);
    expect(human.code).toBe(0);
    expect(human.stdout).toBe("message (agent)\n  ?[2J?]0;owned??]52;c;aGk=??[8mhidden?31m\nnext\tcol\n");
    // An error quoting what the agent was sent is shown the same way, on stderr.
    const missing = await runHere(["task", "get", agent.origin, "no-such-\x1b[2J"]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain("no-such-?[2J");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
    for (const r of [human, missing]) expect(r.stdout + r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const json = await runHere(["send", agent.origin, `echo ${hostile}`, "--json"]);
    expect((JSON.parse(json.stdout) as { message: { parts: Array<{ text: string }> } }).message.parts[0]!.text).toBe(hostile);
  });
});

describe("a2a stream", () => {
  it("prints events live and in order, ending with COMPLETED; --json prints one line per event", async () => {
    const [human, json] = await Promise.all([
      a2a(["stream", agent.origin, "count 3 every 250"]),
      a2a(["stream", agent.origin, "count 2", "--json", "--binding", "GRPC"]),
    ]);
    expect(human.code).toBe(0);
    const events = human.lines.filter((l) => /^\+\s*\d+ms /.test(l.text));
    expect(events.map((l) => l.text.replace(/^\+\s*\d+ms /, "").replace(/[0-9a-f-]{36}/, "ID"))).toEqual([
      "task ID SUBMITTED",
      "status WORKING",
      "artifact result = chunk-1",
      "artifact result += chunk-2",
      "artifact result += chunk-3 (last chunk)",
      "status COMPLETED",
    ]);
    // Printed as they came, not all at the end.
    expect(events[5]!.at - events[2]!.at).toBeGreaterThanOrEqual(300);
    expect(human.lines.at(-1)!.text).toMatch(/^task \S+ COMPLETED: chunk-1 chunk-2 chunk-3$/);

    expect(json.code).toBe(0);
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, { status?: { state: string } }>);
    expect(Object.keys(lines[0]!)).toEqual(["task"]);
    expect(lines.at(-1)!.statusUpdate!.status!.state).toBe("TASK_STATE_COMPLETED");
    expect(lines.filter((l) => l.artifactUpdate)).toHaveLength(2);
  });

  it("ends quietly with status 141 when its reader closes the pipe early (| head -1), without a stack", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", CLI, "stream", agent.cardUrl, "count 50 every 100"], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    // The first event line arrives; then the reader goes away, as head does.
    child.stdout.once("data", () => child.stdout.destroy());
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    clearTimeout(timer);
    expect(code).toBe(141);
    expect(stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
  }, 25_000);

  it("exits 130 at once on Ctrl-C while reading a --file that never ends (a named pipe whose writer is silent)", async () => {
    const fifo = join(dir, "silent-pipe");
    execFileSync("mkfifo", [fifo]);
    const child = spawn(process.execPath, ["--import", "tsx", CLI, "send", agent.origin, "hi", "--file", fifo], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    // Opening the pipe for writing completes once the command has opened it to read: Ctrl-C then.
    const writer = await open(fifo, "w");
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    try {
      child.kill("SIGINT");
      // A read that holds a thread would keep even process.exit from ending the process.
      expect(await closed).toBe(130);
      expect(stderr).toBe("interrupted\n");
    } finally {
      clearTimeout(timer);
      await writer.close();
    }
  }, 25_000);

  it("ends with status 141 too when the reader of stderr goes away (-v 2>&1 >/dev/null | head -1)", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", CLI, "stream", agent.cardUrl, "count 50 every 100", "-v"], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    // The first line of the wire log arrives; then its reader goes away.
    child.stderr.once("data", () => child.stderr.destroy());
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    clearTimeout(timer);
    expect(code).toBe(141);
  }, 25_000);

  it("resumes a stream whose connection is cut, and says so on stderr", async () => {
    // A card whose only interface is behind a proxy that resets the first connection mid-stream.
    const proxy: ChaosProxy = await startChaosProxy(Number(new URL(agent.origin).port), (i) =>
      i === 0 ? { cutAfter: 1400, fault: "reset" } : {},
    );
    const card = (await (await fetch(agent.cardUrl)).json()) as Record<string, unknown>;
    delete card.signatures;
    card.supportedInterfaces = [{ url: `http://127.0.0.1:${proxy.port}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }];
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(card));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent-card.json`;
      const run = await a2a(["stream", url, "count 6 every 60"]);
      expect(run.code).toBe(0);
      expect(proxy.faults).toBe(1);
      // The notice is a diagnostic, on stderr: stdout holds only the events.
      expect(run.stderr).toMatch(/connection lost; resumed task \S+/);
      expect(run.stdout).not.toContain("connection lost");
      // The resumed stream goes on with a snapshot: still WORKING, or already
      // COMPLETED when the task finished while the client was reconnecting.
      expect(run.lines.filter((l) => /^\+\s*\d+ms task \S+ (WORKING|COMPLETED)$/.test(l.text))).toHaveLength(1);
      expect(run.lines.at(-1)!.text).toMatch(/^task \S+ COMPLETED: chunk-1/);
      expect(run.lines.at(-1)!.text).toContain("chunk-6");
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await proxy.close();
    }
  });
});

describe("a2a task list pages", () => {
  it("prints the tasks on stdout and the next page's hint on stderr, where hints go", async () => {
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: agent.jsonRpcUrl }));
    const contextId = `ctx-cli-pages-${Date.now()}`;
    for (let i = 0; i < 2; i++) await client.sendMessage({ message: userMessage("count 1", { contextId }) });
    const page = await runCli(["task", "list", agent.origin, "--context", contextId, "--page-size", "1"]);
    expect(page.code).toBe(0);
    expect(page.stdout.trim().split("\n")).toHaveLength(1);
    expect(page.stdout).not.toContain("next page");
    expect(page.stderr).toMatch(/^next page: --page-token \S+$/m);
  });
});

describe("a2a task and a2a push", () => {
  it("gets, lists, follows and cancels a held task, and manages its push configs", async () => {
    // In this process, as runCli runs the CLI: ten child processes at once are slow on a loaded machine.
    const held = await runCli(["send", agent.origin, "hold", "--no-wait", "--json"]);
    expect(held.code).toBe(0);
    const { task } = JSON.parse(held.stdout) as { task: { id: string; contextId: string } };

    const subscription = runCli(["task", "subscribe", agent.origin, task.id, "--binding", "HTTP+JSON"]);
    const [get, list, created, missing] = await Promise.all([
      runCli(["task", "get", agent.origin, task.id, "--history", "1"]),
      runCli(["task", "list", agent.origin, "--context", task.contextId, "--json"]),
      runCli([
        "push",
        "create",
        agent.origin,
        task.id,
        "cfg-1",
        "--push-url",
        "https://hooks.example.com/a2a",
        "--push-token",
        "push-secret-9",
        "--json",
      ]),
      runCli(["task", "get", agent.origin, "no-such-task"]),
    ]);
    expect(get.code).toBe(0);
    expect(get.stdout).toContain(`task ${task.id} WORKING`);
    expect(get.stdout).toContain("user: hold");
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { tasks: Array<{ id: string }> }).tasks.map((t) => t.id)).toEqual([task.id]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ id: "cfg-1", taskId: task.id, url: "https://hooks.example.com/a2a", token: "***" });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain("TaskNotFoundError");

    const [pushList, pushGet] = await Promise.all([
      runCli(["push", "list", agent.origin, task.id]),
      runCli(["push", "get", agent.origin, task.id, "cfg-1", "--binding", "GRPC"]),
    ]);
    expect(pushList.code).toBe(0);
    expect(pushList.stdout).toContain("cfg-1  https://hooks.example.com/a2a  token (set)");
    expect(pushGet.code).toBe(0);
    expect(pushGet.stdout).toContain("push config cfg-1");
    for (const r of [created, pushList, pushGet]) expect(r.stdout).not.toContain("push-secret-9");

    const [deleted, canceled] = await Promise.all([
      runCli(["push", "delete", agent.origin, task.id, "cfg-1"]),
      runCli(["task", "cancel", agent.origin, task.id]),
    ]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain(`deleted push config cfg-1 of task ${task.id}`);
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: agent.jsonRpcUrl }));
    expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toEqual([]);
    expect(canceled.code).toBe(0);
    expect(canceled.stdout).toContain(`task ${task.id} CANCELED`);

    const followed = await subscription;
    expect(followed.code).toBe(0);
    expect(followed.stderr).toContain("via HTTP+JSON 1.0");
    expect(followed.stdout).toMatch(new RegExp(`task ${task.id} WORKING[\\s\\S]*status CANCELED`));
    expect(followed.stdout.trimEnd().split("\n").at(-1)).toBe(`task ${task.id} CANCELED`);
  });

  it("never prints a webhook URL's credentials (user info, query values): push create, get and list, text and --json", async () => {
    const held = await runCli(["send", agent.origin, "hold", "--no-wait", "--json"]);
    const { task } = JSON.parse(held.stdout) as { task: { id: string } };
    const hook = "https://hook-user:hook-pass-7c1@hooks.example.com/a2a?sig=hook-sig-3e9a&v=2";
    const secrets = ["hook-pass-7c1", "hook-sig-3e9a", "hook-user", "push-secret-9"];
    const runs = [
      await runCli(["push", "create", agent.origin, task.id, "cfg-t", "--push-url", hook, "--push-token", "push-secret-9"]),
      await runCli(["push", "create", agent.origin, task.id, "cfg-j", "--push-url", hook, "--push-token", "push-secret-9", "--json"]),
      await runCli(["push", "get", agent.origin, task.id, "cfg-t"]),
      await runCli(["push", "get", agent.origin, task.id, "cfg-j", "--json"]),
      await runCli(["push", "list", agent.origin, task.id]),
      await runCli(["push", "list", agent.origin, task.id, "--json"]),
    ];
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("hooks.example.com/a2a");
      for (const s of secrets) expect(r.stdout + r.stderr).not.toContain(s);
    }
    expect(runs[2]!.stdout).toContain("url https://***@hooks.example.com/a2a?sig=***&v=2");
    expect((JSON.parse(runs[1]!.stdout) as { url: string }).url).toBe("https://***@hooks.example.com/a2a?sig=***&v=2");
    await runCli(["task", "cancel", agent.origin, task.id]);
  });
});

describe("a2a against @a2a-js/sdk 1.0.0-beta.0", () => {
  let beta: LocalAgent;
  beforeAll(async () => {
    beta = await startLocalAgent({ sdk: SDK_1_0_BETA });
  });
  afterAll(() => beta?.close());

  it("task subscribe over HTTP+JSON follows a task to CANCELED (POST only there); task list, without a status filter, lists nothing", async () => {
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: beta.jsonRpcUrl }));
    const res = await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } });
    const task = res.payload.case === "task" ? res.payload.value : undefined;
    expect(task?.status?.state).toBe(TaskState.WORKING);
    let snapshot!: () => void;
    const subscribed = new Promise<void>((resolve) => (snapshot = resolve));
    const subscription = a2a(["task", "subscribe", beta.origin, task!.id, "--binding", "HTTP+JSON"], {}, (line) => {
      if (line.includes(`task ${task!.id} WORKING`)) snapshot();
    });
    const list = await a2a(["task", "list", beta.origin, "--context", task!.contextId, "--json"]);
    expect(list.code).toBe(0);
    // The beta's difference (pagination.test.ts): no status filter reads as "status UNSPECIFIED".
    expect((JSON.parse(list.stdout) as { tasks?: unknown[] }).tasks ?? []).toEqual([]);
    // Cancel once the subscriber has its snapshot, so it sees the end.
    await Promise.race([subscribed, subscription]);
    expect((await client.cancelTask({ id: task!.id })).status?.state).toBe(TaskState.CANCELED);
    const followed = await subscription;
    expect(followed.code).toBe(0);
    expect(followed.stderr).toContain("via HTTP+JSON 1.0");
    expect(followed.lines.at(-1)!.text).toBe(`task ${task!.id} CANCELED`);
  });
});

/**
 * The interop kit's agent (itk/), driven as the kit drives it: the first
 * instruction goes to `/jsonrpc/` as the kit's own JSON-RPC request, nested
 * the way the kit nests a round trip A -> B -> A, and the answer is checked
 * for every hop's trace token, as the kit checks it. A runs on the installed
 * @a2a-js/sdk server, B on @a2a-js/sdk 1.0.0-beta.0 (the kit's TypeScript
 * 1.0 agent's release); both make their calls through a2a-connect, which an
 * interceptor of its own records, so each hop is seen leaving on the binding
 * the instruction names, and on no other.
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { InstructionSchema, SeriesOfSteps_ResponseGenerator, type Instruction } from "../../gen/itk/instruction_pb.js";
import { startItkAgent, type ItkAgent } from "../../itk/server.js";
import { instructionPart } from "../../itk/instruction.js";
import { A2AClient, TaskState, createJsonRpcTransport, userMessage, type Interceptor } from "../../src/node.js";
import { SDK_1_0_BETA } from "../support/peers.js";

type Behavior = "sendMessage" | "pushNotification" | "resubscribe";

interface Sent {
  from: string;
  method: string;
  url: string;
}

let sent: Sent[] = [];
/** Called on each call recorded, once. */
let onSent: (() => void) | undefined;
const recordAs =
  (from: string): Interceptor =>
  (next) =>
  (req) => {
    sent.push({ from, method: req.method.name, url: req.url });
    onSent?.();
    onSent = undefined;
    return next(req);
  };

let a: ItkAgent;
let b: ItkAgent;
const names = new Map<ItkAgent, string>();

beforeAll(async () => {
  // A short hold: a resubscribing caller cancels long before it ends, and
  // the first agent's own hold ends the kit's stream soon after.
  a = await startItkAgent({ holdMs: 300, connect: { transport: { interceptors: [recordAs("a")] } } });
  b = await startItkAgent({ holdMs: 300, sdk: SDK_1_0_BETA, connect: { transport: { interceptors: [recordAs("b")] } } });
  names.set(a, "a").set(b, "b");
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});
beforeEach(() => {
  sent = [];
});

const say = (response: string, holdTask = false): Instruction =>
  create(InstructionSchema, { step: { case: "returnResponse", value: { response, holdTask } } });

/**
 * The kit's round trip over `circuit` on one binding: each hop answers with
 * its trace token, then calls the next agent with the rest of the trip; the
 * last agent answers `traversal-completed:<transport>`. Returns the
 * instruction for the first agent and the tokens its answer must contain.
 */
function roundTrip(circuit: ItkAgent[], transport: string, behavior: Behavior, options: { streaming?: boolean; pushUrl?: string } = {}) {
  const hold = behavior === "resubscribe";
  const end = `traversal-completed:${transport}`;
  let instruction = say(end, hold);
  const tokens: string[] = [];
  for (let i = circuit.length - 2; i >= 0; i--) {
    const token = `[${names.get(circuit[i]!)} -> ${names.get(circuit[i + 1]!)} (${transport})]`;
    tokens.unshift(token);
    const how =
      behavior === "pushNotification"
        ? { case: behavior, value: { url: options.pushUrl ?? "" } }
        : { case: behavior, value: {} as Record<string, never> };
    instruction = create(InstructionSchema, {
      step: {
        case: "steps",
        value: {
          responseGenerator: SeriesOfSteps_ResponseGenerator.CONCAT,
          instructions: [
            say(token, hold),
            {
              step: {
                case: "callAgent",
                value: {
                  transport,
                  agentCardUri: circuit[i + 1]!.origin,
                  streaming: options.streaming ?? false,
                  instruction,
                  behavior: how,
                },
              },
            },
          ],
        },
      },
    });
  }
  return { instruction, tokens: [...tokens, end] };
}

const base64 = (instruction: Instruction) => Buffer.from(toBinary(InstructionSchema, instruction)).toString("base64");

/** The kit's first request: JSON-RPC to `{origin}/jsonrpc/`, the instruction as a raw part. */
function kitRequest(agent: ItkAgent, instruction: Instruction, options: { streaming?: boolean; push?: string; parts?: unknown[] } = {}) {
  const parts = options.parts ?? [{ raw: base64(instruction), mediaType: "application/x-protobuf", filename: "instruction.bin" }];
  const params: Record<string, unknown> = { message: { role: "ROLE_USER", messageId: crypto.randomUUID(), parts } };
  if (options.push) params.configuration = { taskPushNotificationConfig: { url: `${options.push}/notifications`, token: "kit" } };
  return fetch(`${agent.origin}/jsonrpc/`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: options.streaming ? "SendStreamingMessage" : "SendMessage", params }),
    signal: AbortSignal.timeout(15_000),
  });
}

type Json = Record<string, any>;
const partsText = (message: Json | undefined): string =>
  ((message?.parts ?? []) as Json[])
    .map((p) => p.text)
    .filter(Boolean)
    .join("\n");

/** The answer the kit reads from a SendMessage result: the task's status message. */
async function kitAnswer(res: Response): Promise<{ state: string; text: string }> {
  const body = (await res.json()) as Json;
  expect(body.error).toBeUndefined();
  const task = body.result.task as Json;
  return { state: task.status.state, text: partsText(task.status.message) };
}

/** What the kit reads from a stream: the agent's status messages, read to the stream's end. */
async function kitStreamAnswer(res: Response): Promise<string> {
  expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
  const texts: string[] = [];
  for (const line of (await res.text()).split("\n")) {
    if (!line.startsWith("data:")) continue;
    const update = (JSON.parse(line.slice(5)) as Json).result?.statusUpdate;
    if (update?.status?.message?.role === "ROLE_AGENT") texts.push(partsText(update.status.message));
  }
  return texts.join("\n");
}

const KIT_BINDINGS = [
  { transport: "jsonrpc", binding: "JSONRPC" },
  { transport: "http_json", binding: "HTTP+JSON" },
  { transport: "grpc", binding: "GRPC" },
] as const;

/** Whether `url` is an endpoint of `agent` on `binding`. */
function onBinding(url: string, agent: ItkAgent, binding: string): boolean {
  if (binding === "JSONRPC") return url === agent.jsonRpcUrl;
  if (binding === "HTTP+JSON") return url.startsWith(`${agent.restUrl}/`);
  return url.startsWith(`http://${agent.grpcAddress}/lf.a2a.v1.A2AService/`);
}

/** Every call of the trip A -> B -> A went through a2a-connect to the next agent on `binding`, and only there. */
function expectHopsOn(binding: string, methods: string[]): void {
  expect(sent.length).toBeGreaterThan(0);
  for (const s of sent) expect(onBinding(s.url, s.from === "a" ? b : a, binding), `${s.from}: ${s.method} ${s.url}`).toBe(true);
  for (const from of ["a", "b"]) expect(sent.filter((s) => s.from === from).map((s) => s.method)).toEqual(methods);
}

describe.each(KIT_BINDINGS)("the kit's round trip A -> B -> A on $binding", ({ transport, binding }) => {
  it("send_message: every hop's token comes back in the first agent's completed task", async () => {
    const { instruction, tokens } = roundTrip([a, b, a], transport, "sendMessage");
    const answer = await kitAnswer(await kitRequest(a, instruction));
    expect(answer.state).toBe("TASK_STATE_COMPLETED");
    expect(answer.text).toBe(tokens.join("\n"));
    expectHopsOn(binding, ["SendMessage"]);
  });

  it("send_message streaming: the tokens arrive in the stream's status messages", async () => {
    const { instruction, tokens } = roundTrip([a, b, a], transport, "sendMessage", { streaming: true });
    const text = await kitStreamAnswer(await kitRequest(a, instruction, { streaming: true }));
    expect(text).toContain(tokens.join("\n"));
    expectHopsOn(binding, ["SendStreamingMessage"]);
  });

  it("push_notification: every hop's task pushes its answer to the kit's notification service", async () => {
    const service = await startNotificationService();
    try {
      const { instruction, tokens } = roundTrip([a, b, a], transport, "pushNotification", { pushUrl: service.url });
      // What the kit checks: each hop's answer, from the last hop's outwards.
      const states = tokens.map((_, i) => tokens.slice(i).join("\n"));
      const pushed = service.until((texts) => states.every((s) => texts.some((t) => t.includes(s))));
      const answer = await kitAnswer(await kitRequest(a, instruction, { push: service.url }));
      expect(answer.text).toBe(tokens.join("\n"));
      await pushed;
      expectHopsOn(binding, ["SendMessage"]);
    } finally {
      await service.close();
    }
  });

  it("resubscribe: each hop drops its stream, subscribes, reads to the held task's marker and cancels it", async () => {
    const { instruction, tokens } = roundTrip([a, b, a], transport, "resubscribe", { streaming: true });
    const text = await kitStreamAnswer(await kitRequest(a, instruction, { streaming: true }));
    for (const token of tokens) expect(text).toContain(token);
    expect(text).toContain("task-finished");
    expectHopsOn(binding, ["SendStreamingMessage", "SubscribeToTask", "CancelTask"]);
  });
});

/** The first line a started agent prints (`... card URL, ...`), or why it exited before. */
function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk;
      if (out.includes("\n")) resolve(out);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before it was ready: ${out}`)));
  });
}

describe("the kit's instructions, as the other SDKs' agents send them", () => {
  it("a 0.3 agent's message/send, the instruction as file bytes, is answered at 0.3", async () => {
    const res = await fetch(`${a.origin}/jsonrpc/`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "0.3" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: {
          message: {
            kind: "message",
            role: "user",
            messageId: crypto.randomUUID(),
            parts: [
              { kind: "file", file: { bytes: base64(say("hello over 0.3")), mimeType: "application/x-protobuf", name: "instruction.bin" } },
            ],
          },
        },
      }),
    });
    const task = ((await res.json()) as Json).result;
    expect(task.kind).toBe("task");
    expect(task.status.state).toBe("completed");
    expect(partsText(task.status.message)).toBe("hello over 0.3");
  });

  it("an instruction base64-encoded in a text part is run too", async () => {
    const answer = await kitAnswer(await kitRequest(a, say("x"), { parts: [{ text: base64(say("from text")) }] }));
    expect(answer).toEqual({ state: "TASK_STATE_COMPLETED", text: "from text" });
  });

  it("a message without an instruction fails its task, saying so", async () => {
    const answer = await kitAnswer(await kitRequest(a, say("x"), { parts: [{ text: "hello" }] }));
    expect(answer.state).toBe("TASK_STATE_FAILED");
    expect(answer.text).toMatch(/no Instruction.*application\/x-protobuf/);
  });
});

describe("a hop that cannot be made fails the task, naming why", () => {
  const callB = (transport: string, agentCardUri = b.origin) =>
    create(InstructionSchema, {
      step: {
        case: "callAgent",
        value: { transport, agentCardUri, instruction: say("unreached"), behavior: { case: "sendMessage", value: {} } },
      },
    });

  it("a transport the kit does not define", async () => {
    const answer = await kitAnswer(await kitRequest(a, callB("smtp")));
    expect(answer.state).toBe("TASK_STATE_FAILED");
    expect(answer.text).toContain('"smtp" names no binding');
    expect(sent).toEqual([]);
  });

  it("an agent whose card lacks the binding asked for: no call on another binding", async () => {
    // B's card, published without its gRPC interfaces.
    const card = (await (await fetch(b.cardUrl)).json()) as Json;
    card.supportedInterfaces = (card.supportedInterfaces as Json[]).filter((i) => i.protocolBinding !== "GRPC");
    card.signatures = [];
    const cardHost = await serve((_req, res) => res.setHeader("content-type", "application/json").end(JSON.stringify(card)));
    try {
      const answer = await kitAnswer(await kitRequest(a, callB("grpc", cardHost.url)));
      expect(answer.state).toBe("TASK_STATE_FAILED");
      expect(answer.text).toContain(`GRPC call to ${cardHost.url} failed: no usable interface in the Agent Card`);
      expect(sent).toEqual([]);
    } finally {
      await cardHost.close();
    }
  });

  it("an agent that is not there, two hops away: each hop on the way says which call failed", async () => {
    const gone = await serve(() => undefined);
    await gone.close();
    const viaB = create(InstructionSchema, {
      step: { case: "callAgent", value: { transport: "http_json", agentCardUri: b.origin, instruction: callB("jsonrpc", gone.url) } },
    });
    const answer = await kitAnswer(await kitRequest(a, viaB));
    expect(answer.state).toBe("TASK_STATE_FAILED");
    expect(answer.text).toContain(
      `HTTP+JSON call to ${b.origin} failed: its task ended TASK_STATE_FAILED: JSONRPC call to ${gone.url} failed:`,
    );
    expect(sent.map((s) => `${s.from} ${s.method}`)).toEqual(["a SendMessage"]);
  });
});

describe("a canceled task", () => {
  it("stops the call it is making: the task ends CANCELED while the called agent still holds", async () => {
    const holder = await startItkAgent({ holdMs: 60_000 });
    try {
      const client = new A2AClient(createJsonRpcTransport({ baseUrl: a.jsonRpcUrl }));
      const callHolder = create(InstructionSchema, {
        step: { case: "callAgent", value: { transport: "grpc", agentCardUri: holder.origin, instruction: say("held", true) } },
      });
      const calling = new Promise<void>((resolve) => (onSent = resolve));
      const states: TaskState[] = [];
      for await (const event of client.sendStreamingMessage({ message: userMessage(instructionPart(callHolder)) })) {
        if (event.payload.case === "task") {
          // Canceled once its call to the holding agent is under way.
          await calling;
          await client.cancelTask({ id: event.payload.value.id });
        }
        if (event.payload.case === "statusUpdate") states.push(event.payload.value.status!.state);
      }
      expect(states.at(-1)).toBe(TaskState.CANCELED);
      expect(sent.map((s) => `${s.from} ${s.method}`)).toEqual(["a SendMessage"]);
    } finally {
      await holder.close();
    }
  });
});

describe("npm run itk-agent, as the kit starts it", () => {
  const itkDir = fileURLToPath(new URL("../../itk/", import.meta.url));

  it("serves the card on the HTTP port it is given and stops on SIGTERM", async () => {
    // The kit starts `npm run itk-agent -- --httpPort H --grpcPort G` in itk/.
    const child = spawn("npm", ["run", "--silent", "itk-agent", "--", "--httpPort", "0", "--grpcPort=0"], { cwd: itkDir });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      const ready = await firstLine(child);
      const cardUrl = /card (\S+),/.exec(ready)?.[1];
      const card = (await (await fetch(cardUrl!, { signal: AbortSignal.timeout(10_000) })).json()) as Json;
      expect(card.name).toBe("a2a-connect ITK agent");
      expect(new Set((card.supportedInterfaces as Json[]).map((i) => `${i.protocolBinding} ${i.protocolVersion}`))).toEqual(
        new Set(["JSONRPC 1.0", "HTTP+JSON 1.0", "GRPC 1.0", "JSONRPC 0.3", "HTTP+JSON 0.3", "GRPC 0.3"]),
      );
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      await expect(fetch(cardUrl!)).rejects.toThrow();
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);

  it("logs each call it makes to another agent on stderr: method, binding, version, URL, outcome", async () => {
    const child = spawn("npm", ["run", "--silent", "itk-agent", "--", "--httpPort", "0", "--grpcPort", "0"], { cwd: itkDir });
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => (err += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    // An agent whose card is B's with its JSON-RPC interfaces on a port nobody listens on.
    const gone = await serve(() => undefined);
    await gone.close();
    const card = (await (await fetch(b.cardUrl)).json()) as Json;
    for (const i of card.supportedInterfaces as Json[]) if (i.protocolBinding === "JSONRPC") i.url = `${gone.url}/jsonrpc`;
    card.signatures = [];
    const cardHost = await serve((_req, res) => res.setHeader("content-type", "application/json").end(JSON.stringify(card)));
    try {
      const ready = await firstLine(child);
      const agent = { origin: new URL(/card (\S+),/.exec(ready)![1]!).origin } as ItkAgent;
      const call = (transport: string, agentCardUri: string, response: string, streaming = false): Instruction =>
        create(InstructionSchema, {
          step: {
            case: "callAgent",
            value: { transport, agentCardUri, streaming, instruction: say(response), behavior: { case: "sendMessage", value: {} } },
          },
        });
      const series = create(InstructionSchema, {
        step: {
          case: "steps",
          value: {
            responseGenerator: SeriesOfSteps_ResponseGenerator.CONCAT,
            instructions: [call("jsonrpc", a.origin, "one"), call("grpc", a.origin, "two"), call("http_json", a.origin, "three", true)],
          },
        },
      });
      expect(await kitAnswer(await kitRequest(agent, series))).toEqual({ state: "TASK_STATE_COMPLETED", text: "one\ntwo\nthree" });
      expect((await kitAnswer(await kitRequest(agent, call("jsonrpc", cardHost.url, "unreached")))).state).toBe("TASK_STATE_FAILED");
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      const lines = err.split("\n").filter((l) => l.startsWith("outbound "));
      const port = new URL(a.origin).port;
      const grpcPort = a.grpcAddress.split(":").at(-1);
      const ms = String.raw`\d+\.\dms`;
      for (const [i, line] of [
        String.raw`a2a SendMessage JSONRPC 1\.0 http://127\.0\.0\.1:${port}/jsonrpc ok ${ms}`,
        String.raw`a2a SendMessage GRPC 1\.0 http://127\.0\.0\.1:${grpcPort}/lf\.a2a\.v1\.A2AService/SendMessage ok ${ms}`,
        String.raw`a2a SendStreamingMessage HTTP\+JSON 1\.0 http://127\.0\.0\.1:${port}/rest/message:stream ok ${ms} \(\d+ events\)`,
        String.raw`a2a SendMessage JSONRPC (1\.0|0\.3) ${gone.url.replaceAll(".", "\\.")}/jsonrpc error ${ms} \(ConnectionError\)`,
      ].entries()) {
        expect(lines[i], err).toMatch(new RegExp(`^outbound ${line}$`));
      }
      expect(err).toMatch(/^task \S+ failed: JSONRPC call to .* failed: /m);
    } finally {
      child.kill("SIGKILL");
      await cardHost.close();
    }
  }, 60_000);

  it("refuses a port that is not one, with its usage", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "agent.ts", "--httpPort", "http", "--grpcPort", "1"], { cwd: itkDir });
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => (err += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(err).toContain("--httpPort: not a port: http");
    expect(err).toContain("usage: npm run itk-agent -- --httpPort <port> --grpcPort <port>");
  }, 60_000);
});

// ---------------------------------------------------------------------------

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The kit's notification service: stores the events POSTed to
 * `/notifications`; `until(check)` resolves once the agents' status
 * messages pushed so far pass `check`.
 */
async function startNotificationService() {
  const texts: string[] = [];
  const waiters: Array<{ check: (texts: string[]) => boolean; resolve: () => void }> = [];
  const host = await serve((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/notifications") {
        const message = (JSON.parse(body) as Json).statusUpdate?.status?.message;
        if (message?.role === "ROLE_AGENT") texts.push(partsText(message));
        for (const w of waiters.filter((w) => w.check(texts))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      res.end('{"status":"received"}');
    });
  });
  return {
    url: host.url,
    close: host.close,
    until: (check: (texts: string[]) => boolean) =>
      new Promise<void>((resolve) => (check(texts) ? resolve() : waiters.push({ check, resolve }))),
  };
}

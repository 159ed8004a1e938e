/**
 * The test agent's gRPC server as another gRPC implementation sees it: a
 * bare @grpc/grpc-js client (no A2A in it) gets a unary answer, a server
 * stream to its OK status, an A2A error as its gRPC code with the details
 * in `grpc-status-details-bin`, a dropped call as its reset stream
 * (RST_STREAM INTERNAL_ERROR, which gRPC reads as INTERNAL), and a hang
 * ended by its own deadline.
 */
import { Client, credentials, Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { afterEach, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";
import {
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  type SendMessageRequest,
} from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { textOf, userMessage } from "../../../src/index.js";
import { createTestAgent, steps, type TestAgent } from "../../../src/testing.js";

let agent: TestAgent;
let client: Client | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await agent?.close();
});

const SERVICE = "/lf.a2a.v1.A2AService";
const serialize = (schema: DescMessage) => (m: MessageShape<DescMessage>) => Buffer.from(toBinary(schema, m));
const deserialize =
  <D extends DescMessage>(schema: D) =>
  (bytes: Buffer) =>
    fromBinary(schema, bytes);
const request = (text: string): SendMessageRequest => create(SendMessageRequestSchema, { message: userMessage(text) });

function unary(text: string, deadlineMs?: number) {
  return new Promise<MessageShape<typeof SendMessageResponseSchema>>((resolve, reject) =>
    client!.makeUnaryRequest(
      `${SERVICE}/SendMessage`,
      serialize(SendMessageRequestSchema),
      deserialize(SendMessageResponseSchema),
      request(text),
      new Metadata(),
      deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs },
      (e, value) => (e || !value ? reject(e) : resolve(value)),
    ),
  );
}

async function started(): Promise<void> {
  const server = await agent.listen();
  client = new Client(new URL(server.url).host, credentials.createInsecure());
}

it("answers a unary call and a server stream to their OK status", async () => {
  agent = createTestAgent({
    bindings: ["GRPC"],
    scripts: [[steps.reply("hi")], [steps.working(), steps.artifact("42"), steps.complete()]],
  });
  await started();
  expect(textOf(await unary("hello"))).toBe("hi");
  const call = client!.makeServerStreamRequest(
    `${SERVICE}/SendStreamingMessage`,
    serialize(SendMessageRequestSchema),
    deserialize(StreamResponseSchema),
    request("count"),
  );
  const events: string[] = [];
  call.on("data", (e: MessageShape<typeof StreamResponseSchema>) => events.push(e.payload.case ?? ""));
  const code = await new Promise<number>((resolve) => call.on("status", (s: { code: number }) => resolve(s.code)));
  expect([code, events]).toEqual([status.OK, ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]]);
});

it("answers an A2A error with its gRPC code, message and google.rpc.Status details", async () => {
  agent = createTestAgent({ bindings: ["GRPC"], script: [steps.error("TASK_NOT_CANCELABLE", "already done")] });
  await started();
  const failure = (await unary("cancel?").catch((e: unknown) => e)) as ServiceError;
  expect([failure.code, failure.details]).toEqual([status.FAILED_PRECONDITION, "already done"]);
  const details = fromBinary(StatusSchema, failure.metadata.get("grpc-status-details-bin")[0] as Buffer);
  expect(anyUnpack(details.details[0]!, ErrorInfoSchema)?.reason).toBe("TASK_NOT_CANCELABLE");
});

it("a drop is its call's stream reset (INTERNAL to it), and a hang is ended by its deadline", async () => {
  agent = createTestAgent({ bindings: ["GRPC"], scripts: [[steps.drop()], [steps.hang()]] });
  await started();
  const dropped = (await unary("cut").catch((e: unknown) => e)) as ServiceError;
  expect(dropped.code).toBe(status.INTERNAL);
  const hung = (await unary("anyone?", 100).catch((e: unknown) => e)) as ServiceError;
  expect(hung.code).toBe(status.DEADLINE_EXCEEDED);
  expect(agent.requests.map((r) => r.method)).toEqual(["SendMessage", "SendMessage"]);
});

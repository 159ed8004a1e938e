/**
 * The interop kit's `Instruction` as it travels in A2A messages: found in a
 * message's parts and decoded, encoded into a part for the next agent, and
 * the kit's names of the bindings.
 */
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Message as SdkMessage } from "@a2a-js/sdk";
import { InstructionSchema, type Instruction } from "../gen/itk/instruction_pb.js";
import { fileBytes, InvalidParamsError, type Binding, type Part } from "../src/node.js";

/** The media type and file name the kit and the SDKs' agents give an instruction part. */
export const INSTRUCTION_MEDIA_TYPE = "application/x-protobuf";
export const INSTRUCTION_FILENAME = "instruction.bin";

/**
 * The kit's names for the bindings ("jsonrpc", "grpc", "http_json"), with the
 * spellings other SDKs' agents also accept; compared case-insensitively.
 */
const KIT_BINDINGS: Readonly<Record<string, Binding>> = {
  JSONRPC: "JSONRPC",
  GRPC: "GRPC",
  HTTP_JSON: "HTTP+JSON",
  "HTTP+JSON": "HTTP+JSON",
  REST: "HTTP+JSON",
};

/** The binding a `CallAgent.transport` names; InvalidParamsError naming it when it names none. */
export function bindingOfTransport(transport: string): Binding {
  const binding = KIT_BINDINGS[transport.toUpperCase()];
  if (!binding) {
    throw new InvalidParamsError(`CallAgent.transport "${transport}" names no binding (expected jsonrpc, grpc or http_json)`);
  }
  return binding;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The instruction a received message carries, or undefined. Looked for as
 * the kit and the SDKs' agents send it, in this order: a part marked as an
 * instruction (its media type or file name) holding the bytes, or holding
 * them base64-encoded as text; then any text part that is base64 of an
 * instruction. A part whose bytes do not decode to an instruction with a
 * step is skipped, so a stray text part never passes for one.
 */
export function instructionOf(message: SdkMessage | undefined): Instruction | undefined {
  const parts = message?.parts ?? [];
  const marked = parts.filter((p) => p.mediaType === INSTRUCTION_MEDIA_TYPE || p.filename === INSTRUCTION_FILENAME);
  for (const part of [...marked, ...parts.filter((p) => !marked.includes(p))]) {
    const content = part.content;
    const bytes = content?.$case === "raw" ? content.value : content?.$case === "text" ? base64Bytes(content.value) : undefined;
    const instruction = bytes && decode(bytes);
    if (instruction) return instruction;
  }
  return undefined;
}

function base64Bytes(text: string): Uint8Array | undefined {
  const compact = text.replace(/\s+/g, "");
  return compact.length > 0 && compact.length % 4 === 0 && BASE64.test(compact) ? Buffer.from(compact, "base64") : undefined;
}

function decode(bytes: Uint8Array): Instruction | undefined {
  try {
    const instruction = fromBinary(InstructionSchema, bytes);
    return instruction.step.case === undefined ? undefined : instruction;
  } catch {
    // Not an instruction (or nested past the decoder's limits): not this part.
    return undefined;
  }
}

/** The part that carries `instruction` to the next agent, as the kit's agents send it. */
export function instructionPart(instruction: Instruction): Part {
  return fileBytes(toBinary(InstructionSchema, instruction), { mediaType: INSTRUCTION_MEDIA_TYPE, filename: INSTRUCTION_FILENAME });
}

/**
 * Whether the task stays WORKING after answering: some `ReturnResponse` of
 * the instruction asks for it, looking through series of steps but not into
 * the instructions passed on to other agents (those hold their own tasks).
 */
export function holdsTask(instruction: Instruction): boolean {
  const step = instruction.step;
  if (step.case === "returnResponse") return step.value.holdTask;
  if (step.case === "steps") return step.value.instructions.some(holdsTask);
  return false;
}

/** Human-readable renderings of cards, tasks, messages and stream events. */
import { ValueSchema } from "../../gen/google/protobuf/struct_pb.js";
import { protoJsonOf } from "../protocol/proto-json.js";
import {
  Role,
  TaskState,
  type AgentCard,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { VerificationResult } from "../errors/verification-result.js";
import type { Output } from "./output.js";

/** A task state's name, e.g. `COMPLETED`. */
export function stateName(state: TaskState | undefined): string {
  return state === undefined ? "UNKNOWN" : (TaskState[state] ?? String(state));
}

/** A task state's name, padded to `width` and coloured by how the task is doing. */
export function paintState(out: Output, state: TaskState | undefined, width = 0): string {
  const name = stateName(state).padEnd(width);
  switch (state) {
    case TaskState.COMPLETED:
      return out.green(name);
    case TaskState.FAILED:
    case TaskState.REJECTED:
    case TaskState.CANCELED:
      return out.red(name);
    case TaskState.INPUT_REQUIRED:
    case TaskState.AUTH_REQUIRED:
      return out.yellow(name);
    default:
      return out.cyan(name);
  }
}

/** A part on one line: text as is, data as JSON, files by name or URL. */
export function partText(part: Part): string {
  const c = part.content;
  switch (c.case) {
    case "text":
      return c.value;
    case "data":
      return JSON.stringify(protoJsonOf(ValueSchema, c.value));
    case "url":
      return `[file ${part.filename || c.value}${part.mediaType ? ` ${part.mediaType}` : ""}]`;
    case "raw":
      return `[file ${part.filename || "(unnamed)"}, ${c.value.byteLength} bytes${part.mediaType ? `, ${part.mediaType}` : ""}]`;
    default:
      return "";
  }
}

/** Parts on one line, separated by spaces. */
export function partsText(parts: readonly Part[]): string {
  return parts
    .map(partText)
    .filter((s) => s !== "")
    .join(" ");
}

/** A card for people: name, interfaces, skills, capabilities, and how it verified. */
export function printCard(
  out: Output,
  card: AgentCard,
  source: { url: string; shape: string; warnings?: readonly string[] | undefined },
  verification: VerificationResult | undefined,
): void {
  out.line(`${out.bold(card.name)}${card.version ? ` ${out.dim(`v${card.version}`)}` : ""}`);
  if (card.description) out.line(`  ${card.description}`);
  if (card.provider)
    out.line(`  ${out.dim("provider")} ${card.provider.organization}${card.provider.url ? ` (${card.provider.url})` : ""}`);
  out.line(`  ${out.dim("card")} ${source.url}${source.shape !== "1.0" ? ` (A2A ${source.shape} card, shown in the 1.0 shape)` : ""}`);
  for (const w of source.warnings ?? []) out.line(`  ${out.dim("warning")} ${w}`);
  out.line(out.bold("interfaces"));
  for (const i of card.supportedInterfaces) {
    out.line(
      `  ${i.protocolBinding.padEnd(9)} ${i.protocolVersion.padEnd(4)} ${i.url}${i.tenant ? ` ${out.dim(`tenant ${i.tenant}`)}` : ""}`,
    );
  }
  const caps = card.capabilities;
  const flags = [
    caps?.streaming ? "streaming" : undefined,
    caps?.pushNotifications ? "push notifications" : undefined,
    caps?.extendedAgentCard ? "extended card" : undefined,
  ].filter((s): s is string => s !== undefined);
  out.line(`${out.bold("capabilities")} ${flags.length > 0 ? flags.join(", ") : out.dim("none")}`);
  for (const e of caps?.extensions ?? []) out.line(`  ${out.dim("extension")} ${e.uri}${e.required ? " (required)" : ""}`);
  if (card.skills.length > 0) {
    out.line(out.bold("skills"));
    for (const s of card.skills) {
      out.line(`  ${s.id}${s.name && s.name !== s.id ? ` ${out.dim(`(${s.name})`)}` : ""}${s.description ? `: ${s.description}` : ""}`);
    }
  }
  const schemes = Object.keys(card.securitySchemes);
  if (schemes.length > 0) out.line(`${out.bold("security")} ${schemes.join(", ")}`);
  if (verification?.verified) {
    const from = verification.keySource === "jku" ? `key set ${verification.jku}` : "the given keys";
    out.line(`${out.bold("signature")} ${out.green("verified")}: kid ${verification.kid}, ${verification.alg}, key from ${from}`);
  } else {
    const n = card.signatures.length;
    out.line(`${out.bold("signature")} ${n === 0 ? "none" : `${n} signature${n === 1 ? "" : "s"}, not checked (use --verify)`}`);
  }
}

/** A message for people: its role and its parts. */
export function printMessage(out: Output, message: Message): void {
  out.line(`${out.bold("message")} ${out.dim(`(${roleName(message.role)})`)}`);
  const text = partsText(message.parts);
  if (text) out.line(`  ${text}`);
}

function roleName(role: Role): string {
  return role === Role.AGENT ? "agent" : role === Role.USER ? "user" : "unspecified role";
}

/** An artifact on one line: its name and its parts. */
export function printArtifact(out: Output, artifact: Artifact): void {
  const label = artifact.name || artifact.artifactId;
  out.line(`  ${out.dim(`artifact ${label}:`)} ${partsText(artifact.parts)}`);
}

/** A task for people: its state, context, status message and artifacts (and history, when asked). */
export function printTask(out: Output, task: Task, options: { history?: boolean } = {}): void {
  out.line(`${out.bold("task")} ${task.id} ${paintState(out, task.status?.state)}`);
  out.line(`  ${out.dim("context")} ${task.contextId}`);
  const status = task.status?.message ? partsText(task.status.message.parts) : "";
  if (status) out.line(`  ${out.dim("status:")} ${status}`);
  for (const a of task.artifacts) printArtifact(out, a);
  if (options.history) {
    for (const m of task.history) out.line(`  ${out.dim(`${roleName(m.role)}:`)} ${partsText(m.parts)}`);
  }
}

/** One stream event on one line. */
export function describeEvent(out: Output, event: StreamResponse): string {
  const p = event.payload;
  switch (p.case) {
    case "task":
      return `task ${p.value.id} ${paintState(out, p.value.status?.state)}`;
    case "statusUpdate": {
      const text = p.value.status?.message ? partsText(p.value.status.message.parts) : "";
      return `status ${paintState(out, p.value.status?.state)}${text ? ` ${out.dim("-")} ${text}` : ""}`;
    }
    case "artifactUpdate": {
      const a = p.value;
      const label = a.artifact?.name || a.artifact?.artifactId || "?";
      return `artifact ${label} ${a.append ? "+=" : "="} ${a.artifact ? partsText(a.artifact.parts) : ""}${a.lastChunk ? out.dim(" (last chunk)") : ""}`;
    }
    case "message":
      return `message ${partsText(p.value.parts)}`;
    default:
      return out.dim("(empty event)");
  }
}

/** A push config for people: the token is only said to be set. */
export function printPushConfig(out: Output, config: TaskPushNotificationConfig): void {
  out.line(`${out.bold("push config")} ${config.id} ${out.dim(`task ${config.taskId}`)}`);
  out.line(`  ${out.dim("url")} ${config.url}`);
  if (config.token) out.line(`  ${out.dim("token")} (set)`);
  if (config.authentication) out.line(`  ${out.dim("authentication")} ${config.authentication.scheme}`);
}

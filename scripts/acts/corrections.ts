/**
 * Where the published client tests depart from the A2A 1.0 proto, each
 * corrected as the data is read, never in the file: the test, the step, the
 * place in its wire payload, what the file says, what 1.0 says, and why. A
 * correction whose place no longer holds what the file said (the file fixed
 * upstream, or changed) is reported as stale, and the test it concerns does
 * not pass until this table follows. Any other departure is a failure.
 */
import { isDeepStrictEqual } from "node:util";
import type { ActsDocument } from "./document.js";
import { shown } from "./matchers.js";
import { parsePath, valueAt } from "./paths.js";

export interface Correction {
  test: string;
  step: string;
  /** Dot-path within the step's `wire_payload`. */
  path: string;
  /** What the file says there. */
  says: unknown;
  /** What A2A 1.0 says. */
  becomes: unknown;
  why: string;
}

/** What applying the table to a document did. */
export interface Corrected {
  applied: Correction[];
  /** Corrections whose place does not hold what they expect, each with what it holds. */
  stale: Array<{ correction: Correction; found: string }>;
}

const errorInfo = (metadata: Record<string, string>) => [
  { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata },
];

const REST_IS_HTTP_JSON =
  'the 1.0 proto names the binding "HTTP+JSON" (AgentInterface.protocol_binding: JSONRPC, GRPC, HTTP+JSON); "REST" is no binding a 1.0 client knows';

export const CORRECTIONS: readonly Correction[] = [
  {
    test: "CLIENT-PARSE-004",
    step: "parse",
    path: "error.data",
    says: { taskId: "nonexistent-task-id" },
    becomes: errorInfo({ taskId: "nonexistent-task-id" }),
    why: "1.0 JSON-RPC errors carry `data` as an array of `@type`d details, with a google.rpc.ErrorInfo (reason, domain a2a-protocol.org) for A2A errors (spec 9.5); the map becomes the ErrorInfo's metadata",
  },
  {
    test: "CLIENT-PARSE-006",
    step: "parse",
    path: "result.artifacts[2].parts[0]",
    says: { file: { name: "report.pdf", mediaType: "application/pdf", bytes: "JVBERi0xLjQ=" } },
    becomes: { raw: "JVBERi0xLjQ=", filename: "report.pdf", mediaType: "application/pdf" },
    why: "1.0 has no `file` part: a Part holds the bytes in `raw` (base64 in JSON), beside `filename` and `mediaType` (proto Part, fields 2, 6, 7)",
  },
  {
    test: "CLIENT-PARSE-006",
    step: "parse",
    path: "result.artifacts[3].parts[0]",
    says: { fileUrl: { url: "https://example.com/report.pdf", name: "report.pdf", mediaType: "application/pdf" } },
    becomes: { url: "https://example.com/report.pdf", filename: "report.pdf", mediaType: "application/pdf" },
    why: "1.0 has no `fileUrl` part: a Part holds the link in `url`, beside `filename` and `mediaType` (proto Part, fields 3, 6, 7)",
  },
  ...["parse-public-card", "parse-extended-card"].map((step) => ({
    test: "CLIENT-AUTH-001",
    step,
    path: "supportedInterfaces[0].protocolBinding",
    says: "REST",
    becomes: "HTTP+JSON",
    why: REST_IS_HTTP_JSON,
  })),
  {
    test: "CLIENT-CAP-001",
    step: "parse-card",
    path: "supportedInterfaces[0].protocolBinding",
    says: "REST",
    becomes: "HTTP+JSON",
    why: REST_IS_HTTP_JSON,
  },
];

/** A copy of the document with the table applied where it still matches; the document itself is left as read. */
export function applyCorrections(
  document: ActsDocument,
  table: readonly Correction[] = CORRECTIONS,
): { document: ActsDocument; corrected: Corrected } {
  const copy = structuredClone(document);
  const corrected: Corrected = { applied: [], stale: [] };
  for (const correction of table) {
    const test = copy.suites.flatMap((s) => s.tests).find((t) => t.id === correction.test);
    const step = test?.steps.find((s) => s.id === correction.step);
    if (step?.client_response === undefined) {
      corrected.stale.push({ correction, found: test === undefined ? "no such test" : `no client step ${correction.step}` });
      continue;
    }
    const path = parsePath(correction.path);
    const found = valueAt(step.client_response.wire_payload, path);
    if (!isDeepStrictEqual(found, correction.says)) {
      corrected.stale.push({ correction, found: shown(found) });
      continue;
    }
    const parent = valueAt(step.client_response.wire_payload, path.slice(0, -1)) as Record<string | number, unknown>;
    parent[path.at(-1) as string | number] = structuredClone(correction.becomes);
    corrected.applied.push(correction);
  }
  return { document: copy, corrected };
}

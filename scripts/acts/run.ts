/**
 * Runs the client tests of an ACTS document against this client: each step's
 * payload served by an in-memory agent to the real client (`connect` for a
 * card, the session's client after it, else an `A2AClient` on the binding
 * the payload implies), the parsed result checked against `expect_parsed`,
 * then the named assertions and a runner-special test's own checks.
 */
import { A2AError, A2AClient, connect, createJsonRpcTransport, createRestTransport, toProtoJson } from "../../src/index.js";
import { checkNamed } from "./assertions.js";
import { applyCorrections, CORRECTIONS, type Corrected, type Correction } from "./corrections.js";
import type { ActsStep, ActsTest, Level, Source } from "./document.js";
import { check, type Mismatch } from "./matchers.js";
import { AGENT_ORIGIN, MemoryAgent } from "./memory-agent.js";
import { operationOf, servedOn, type Served } from "./operations.js";
import { SPECIAL, type TestContext } from "./special.js";

export type Outcome = "pass" | "fail" | "error";

export interface StepRun {
  id: string;
  operation: string | undefined;
  served: Served | undefined;
}

export interface TestRun {
  id: string;
  name: string;
  level: Level;
  result: Outcome;
  steps: StepRun[];
  /** What failed, each naming the test, the step and the field. */
  failures: string[];
  /** The runner-special checks asserted, in words. */
  asserts: readonly string[];
  corrections: Correction[];
}

export interface ActsRun {
  source: Source;
  corrected: Corrected;
  tests: TestRun[];
}

/** Runs every test of the source with the corrections applied; a stale correction fails the test it concerns. */
export async function runActs(source: Source, table: readonly Correction[] = CORRECTIONS): Promise<ActsRun> {
  const { document, corrected } = applyCorrections(source.document, table);
  const tests: TestRun[] = [];
  for (const test of document.suites.flatMap((s) => s.tests)) {
    const run = await runTest(test);
    run.corrections = corrected.applied.filter((c) => c.test === test.id);
    for (const { correction, found } of corrected.stale.filter((s) => s.correction.test === test.id)) {
      run.failures.push(
        `${test.id} step ${correction.step}: correction of ${correction.path} no longer matches the data: it expects ${JSON.stringify(correction.says)}, the file has ${found}`,
      );
      run.result = "error";
    }
    tests.push(run);
  }
  return { source, corrected, tests };
}

/** One test, in a context of its own (spec §4: tests share no state). */
export async function runTest(test: ActsTest): Promise<TestRun> {
  const special = test.tags?.includes("runner-special") && Object.hasOwn(SPECIAL, test.id) ? SPECIAL[test.id] : undefined;
  const run: TestRun = {
    id: test.id,
    name: test.name,
    level: test.level,
    result: "pass",
    steps: [],
    failures: [],
    asserts: special?.asserts ?? [],
    corrections: [],
  };
  const ctx: TestContext = { agent: new MemoryAgent(), session: undefined, parsed: new Map() };
  const mismatch = (step: string) => (m: Mismatch) => `${test.id} step ${step}: ${m.path}: expected ${m.expected}, got ${m.actual}`;
  let current = "(test)";
  try {
    if (test.tags?.includes("runner-special") && special === undefined)
      throw new Error(`runner-special test ${test.id} has no check in this runner (scripts/acts/special.ts)`);
    for (const step of test.steps) {
      current = step.id;
      const before = special?.before?.[step.id];
      if (before) run.failures.push(...(await before(ctx)).map((f) => `${test.id} before step ${step.id}: ${f}`));
      run.steps.push(await runStep(step, ctx, (m) => run.failures.push(mismatch(step.id)(m))));
    }
    current = "(after the steps)";
    for (const a of test.assertions ?? []) run.failures.push(...checkNamed(a, ctx.parsed).map(mismatch(a.id ?? "assertions")));
    if (special) run.failures.push(...(await special.after(ctx)).map((f) => `${test.id} after the steps: ${f}`));
  } catch (e) {
    run.failures.push(`${test.id} step ${current}: ${e instanceof Error ? e.message : String(e)}`);
    run.result = "error";
    return run;
  }
  if (run.failures.length > 0) run.result = "fail";
  return run;
}

async function runStep(step: ActsStep, ctx: TestContext, fail: (m: Mismatch) => void): Promise<StepRun> {
  if (step.client_response === undefined) {
    for (const m of checkNamed(step.assertion!, ctx.parsed)) fail(m);
    return { id: step.id, operation: undefined, served: undefined };
  }
  const { operation, wire_payload: payload } = step.client_response;
  operationOf(operation);
  const served = servedOn(operation, payload);
  ctx.agent.serve(operation, served, payload);
  let parsed: unknown;
  try {
    parsed = await parse(operation, served, ctx);
  } catch (e) {
    if (!(e instanceof A2AError)) throw e;
    parsed = { error: errorJson(e) };
  }
  if (!ctx.agent.takeAnswered()) {
    const made = ctx.agent.requests.map((r) => r.summary).join(", ") || "none";
    throw new Error(
      `the client made no request that ${operation} on ${served} answers (requests: ${made}); it gave ${JSON.stringify(parsed)}`,
    );
  }
  ctx.parsed.set(step.id, parsed);
  for (const m of check(parsed, step.expect_parsed)) fail(m);
  for (const a of step.assertions ?? []) for (const m of checkNamed(a, ctx.parsed)) fail(m);
  return { id: step.id, operation, served };
}

/** What the client made of the payload, as the spec's JSON (the assertion root, spec §4.2). */
async function parse(operation: string, served: Served, ctx: TestContext): Promise<unknown> {
  if (served === "card") {
    ctx.session = await connect(AGENT_ORIGIN, { fetch: ctx.agent.fetch, transport: { httpClient: ctx.agent.httpClient } });
    return toProtoJson(ctx.session.card);
  }
  if (ctx.session !== undefined && ctx.session.client.binding !== served) {
    throw new Error(`the payload is served on ${served}, and the session's interface is ${ctx.session.client.binding}`);
  }
  // The extended card through the session, which adopts it (AgentSession.extendedCard).
  if (operation === "get_extended_agent_card" && ctx.session !== undefined) return toProtoJson(await ctx.session.extendedCard());
  return operationOf(operation).call!(ctx.session?.client ?? clientOn(served, ctx.agent));
}

function clientOn(served: "JSONRPC" | "HTTP+JSON", agent: MemoryAgent): A2AClient {
  const transport =
    served === "JSONRPC"
      ? createJsonRpcTransport({ baseUrl: `${AGENT_ORIGIN}/a2a/jsonrpc`, httpClient: agent.httpClient })
      : createRestTransport({ baseUrl: `${AGENT_ORIGIN}/a2a/rest`, httpClient: agent.httpClient });
  return new A2AClient(transport);
}

/** A thrown error as the JSON-RPC error object it stands for: its code, message and details. */
function errorJson(e: A2AError): Record<string, unknown> {
  return { code: e.jsonRpcCode ?? null, message: e.message, ...(e.details.length > 0 ? { data: e.details } : {}) };
}

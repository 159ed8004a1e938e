/**
 * docs/conformance.md from a run: the source, each test with its level,
 * result, binding and operations, the corrections applied, the
 * runner-special checks, and the total. Nothing in it depends on the
 * machine or the time, so a run can be compared with the committed page.
 */
import type { ActsRun, TestRun } from "./run.js";
import type { Served } from "./operations.js";

const BINDING: Record<Served, string> = {
  card: "Agent Card (GET /.well-known/agent-card.json)",
  JSONRPC: "JSON-RPC",
  "HTTP+JSON": "HTTP+JSON",
};

const code = (v: unknown) => `\`${typeof v === "string" ? v : JSON.stringify(v)}\``;
const unique = (xs: string[]) => [...new Set(xs)].join(", ");

function row(t: TestRun): string {
  const steps = t.steps.filter((s) => s.operation !== undefined);
  const binding = unique(steps.map((s) => BINDING[s.served!]));
  const ops = unique(steps.map((s) => `\`${s.operation}\``));
  return `| ${t.id} | ${t.name} | ${t.level} | ${t.result === "pass" ? "pass" : `**${t.result.toUpperCase()}**`} | ${binding} | ${ops} |`;
}

/** The page's text for a run. */
export function conformancePage(run: ActsRun): string {
  const { source, tests, corrected } = run;
  const passed = tests.filter((t) => t.result === "pass").length;
  const byLevel = (["must", "should", "may"] as const)
    .map((level) => [level, tests.filter((t) => t.level === level)] as const)
    .filter(([, ts]) => ts.length > 0)
    .map(([level, ts]) => `${level.toUpperCase()} ${ts.filter((t) => t.result === "pass").length} of ${ts.length}`);
  const out: string[] = [
    "# ACTS conformance",
    "",
    "What this client makes of the client tests of the A2A Conformance Test Specification (ACTS, A2A pull",
    "request #1882): each test gives a response as an agent sends it on the wire, and what a client must",
    "parse from it. `npm run acts` (`scripts/acts.ts`, modules in `scripts/acts/`) runs them against the",
    "client itself (`connect`, `AgentSession`, `A2AClient`) and writes this page;",
    "`test/conformance/acts.test.ts` runs the same tests and fails when this page differs from its run.",
    "",
    "## Source",
    "",
    `- File: \`${source.file}\`, read at run time from beside the repository, never copied into it.`,
    `- Upstream: the A2A repository's \`conformance-spec\` branch, commit \`${source.commit}\` (Apache License 2.0).`,
    `- ACTS format ${source.document.acts_version}, A2A specification ${source.document.spec_version}.`,
    "",
    "## Results",
    "",
    "| test | name | level | result | binding | operation |",
    "| --- | --- | --- | --- | --- | --- |",
    ...tests.map(row),
    "",
    `**${passed} of ${tests.length} passed** (${byLevel.join(", ")}).`,
    "",
  ];
  const failures = tests.flatMap((t) => t.failures);
  if (failures.length > 0) out.push("### Failures", "", ...failures.map((f) => `- ${f}`), "");
  out.push(
    "## How a payload reaches the client",
    "",
    "An in-memory `fetch` of the runner's own (`scripts/acts/memory-agent.ts`; no socket) serves each step's",
    "`wire_payload` to the request its operation sends, on the binding the payload implies, and records",
    "every request the client makes:",
    "",
    "- `get_agent_card`: the card document at `/.well-known/agent-card.json`, found by `connect()`'s discovery;",
    "  the session it returns makes the test's later calls.",
    "- A JSON-RPC 2.0 envelope: JSON-RPC, to the POST of the operation's method. The envelope is served as",
    "  written but for its `id`, which becomes the request's: a response answers the request it is sent to",
    "  (JSON-RPC 2.0 section 5), and the client refuses one that names another id.",
    "- Any other payload: HTTP+JSON, to the operation's route of the 1.0 proto (`GetExtendedAgentCard`:",
    "  `GET /extendedAgentCard`), taken through `AgentSession.extendedCard()` when a session holds the card.",
    "",
    "The parsed result is compared as the specification's JSON (`toProtoJson`), the assertion root of",
    "ACTS section 4.2; an error the client throws is compared as the JSON-RPC error object it stands for:",
    "`code` (the `A2AError`'s `jsonRpcCode`), `message`, and `data` (its `details`). A step fails when the",
    "client made no request its payload answers.",
    "",
    "The cards of CLIENT-AUTH-001 and CLIENT-CAP-001 lack REQUIRED fields that only describe the agent",
    "(`description`, the default modes; the public cards `skills` too). That is no correction: the client",
    "reads such a card as discovery reads any card, saying what it lacks in `AgentSession.warnings`, and",
    "reads the extended card the same way.",
    "",
    "## Corrections",
    "",
    "The published file departs from the A2A 1.0 proto in these places; the runner corrects them as it",
    "reads the data (`scripts/acts/corrections.ts`), never in the file. A correction whose place no longer",
    "holds what the file said is reported as stale and fails its test. Any other departure is a failure.",
    "",
    "| test | step | path | the file says | 1.0 says | why |",
    "| --- | --- | --- | --- | --- | --- |",
    ...corrected.applied.map((c) => `| ${c.test} | ${c.step} | \`${c.path}\` | ${code(c.says)} | ${code(c.becomes)} | ${c.why} |`),
    "",
    `${corrected.applied.length} applied, ${corrected.stale.length} stale.`,
    "",
  );
  if (corrected.stale.length > 0)
    out.push(
      ...corrected.stale.map((s) => `- stale: ${s.correction.test} ${s.correction.step} \`${s.correction.path}\` holds ${s.found}`),
      "",
    );
  out.push(
    "## Runner-special checks",
    "",
    "What the runner asserts of these tests beyond the parsed payloads (`scripts/acts/special.ts`):",
    "",
  );
  for (const t of tests.filter((x) => x.asserts.length > 0)) out.push(`### ${t.id}`, "", ...t.asserts.map((a) => `- ${a}`), "");
  return `${out.join("\n").trimEnd()}\n`;
}

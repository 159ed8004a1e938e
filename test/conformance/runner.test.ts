/**
 * The conformance runner itself (scripts/acts/): a check that fails names
 * the test, the step and the field; a correction the data no longer needs
 * is reported, not skipped; an unknown operator or operation is an error
 * naming it; a missing data directory fails saying so.
 */
import { describe, expect, it } from "vitest";
import { CORRECTIONS, type Correction } from "../../scripts/acts/corrections.js";
import { loadSource, parseDocument, type Source } from "../../scripts/acts/document.js";
import { runActs } from "../../scripts/acts/run.js";

/** A one-test document around a step's YAML (indented as a step's fields). */
function sourceOf(id: string, step: string, tags = "[client]"): Source {
  const yaml = `acts_version: "1.0"
spec_version: "1.0"
suites:
  - id: s
    name: S
    tests:
      - id: ${id}
        name: A test
        level: must
        tags: ${tags}
        steps:
          - id: parse
${step}`;
  return { file: "inline", commit: "none", document: parseDocument(yaml) };
}

const WORKING_TASK = `            client_response:
              operation: get_task
              wire_payload:
                jsonrpc: "2.0"
                id: "1"
                result:
                  id: t1
                  contextId: c1
                  status: { state: TASK_STATE_WORKING }
                  artifacts:
                    - artifactId: a1
                      parts: [{ text: hi }]
`;

async function only(source: Source, table: readonly Correction[] = []) {
  const run = await runActs(source, table);
  return run.tests[0]!;
}

describe("a check that fails", () => {
  it("names the test, the step and the field path, with what was expected and what the client parsed", async () => {
    const t = await only(
      sourceOf(
        "X-001",
        `${WORKING_TASK}            expect_parsed:
              status: { state: TASK_STATE_COMPLETED }
              artifacts:
                - parts: [{ text: { starts_with: bye } }]
`,
      ),
    );
    expect(t.result).toBe("fail");
    expect(t.failures).toEqual([
      'X-001 step parse: status.state: expected "TASK_STATE_COMPLETED", got "TASK_STATE_WORKING"',
      'X-001 step parse: artifacts[0].parts[0].text: expected starts_with "bye", got "hi"',
    ]);
  });

  it("a named assertion over a collection names where it looked", async () => {
    const t = await only(
      sourceOf(
        "X-002",
        `${WORKING_TASK}            expect_parsed: { id: t1 }
            assertions:
              - source: "{{parse.response}}"
                any: { path: "artifacts[*].parts[*]", match: { text: bye } }
`,
      ),
    );
    expect(t.failures).toEqual(['X-002 step parse: artifacts[*].parts[*]: expected some element to match {"text":"bye"}, got none of 1']);
  });

  it("an error expectation is checked against the A2AError the client throws: its JSON-RPC code and message", async () => {
    const t = await only(
      sourceOf(
        "X-003",
        `            client_response:
              operation: get_task
              wire_payload: { jsonrpc: "2.0", id: 1, error: { code: -32001, message: "Task not found" } }
            expect_parsed:
              error: { code: -32002, message: { contains: "not found" } }
`,
      ),
    );
    expect(t.failures).toEqual(["X-003 step parse: error.code: expected -32002, got -32001"]);
  });

  it("a payload the client sends no request for fails the step, naming the requests it made", async () => {
    const card = (extended: boolean) =>
      `{ name: A, version: "1", capabilities: { extendedAgentCard: ${extended} }, supportedInterfaces: [{ url: "https://example.com/a2a", protocolBinding: HTTP+JSON, protocolVersion: "1.0" }] }`;
    const t = await only(
      sourceOf(
        "X-004",
        `            client_response: { operation: get_agent_card, wire_payload: ${card(false)} }
            expect_parsed: { name: A }
          - id: extended
            client_response: { operation: get_extended_agent_card, wire_payload: ${card(true)} }
            expect_parsed: { name: A }
`,
      ),
    );
    // The session refuses before any request: the public card offers no extended card.
    expect(t.result).toBe("error");
    expect(t.failures).toEqual([
      expect.stringMatching(
        /^X-004 step extended: the client made no request that get_extended_agent_card on HTTP\+JSON answers \(requests: GET \/\.well-known\/agent-card\.json\); it gave \{"error":/,
      ),
    ]);
  });
});

describe("corrections", () => {
  it("one whose place no longer holds what the file said is reported as stale, and its test does not pass", async () => {
    const table = CORRECTIONS.filter((c) => c.test === "CLIENT-PARSE-006").map((c) => ({ ...c, test: "X-006" }));
    const t = await only(
      sourceOf(
        "X-006",
        `            client_response:
              operation: get_task
              wire_payload:
                jsonrpc: "2.0"
                id: "1"
                result:
                  id: t1
                  contextId: c1
                  status: { state: TASK_STATE_COMPLETED }
                  artifacts:
                    - { artifactId: a, parts: [{ text: a }] }
                    - { artifactId: b, parts: [{ text: b }] }
                    - { artifactId: c, parts: [{ raw: "JVBERi0xLjQ=", filename: report.pdf, mediaType: application/pdf }] }
                    - { artifactId: d, parts: [{ url: "https://example.com/report.pdf", filename: report.pdf, mediaType: application/pdf }] }
            expect_parsed: { artifacts: { count_gte: 4 } }
`,
      ),
      table,
    );
    expect(t.result).toBe("error");
    expect(t.corrections).toEqual([]);
    expect(t.failures).toHaveLength(2);
    expect(t.failures[0]).toMatch(
      /^X-006 step parse: correction of result\.artifacts\[2\]\.parts\[0\] no longer matches the data: it expects \{"file":.*\}, the file has \{"raw":"JVBERi0xLjQ=",/,
    );
  });

  it("the data as read is left as it is: the corrected copy is the one run", async () => {
    const source = loadSource();
    const before = JSON.stringify(source.document);
    await runActs(source);
    expect(JSON.stringify(source.document)).toBe(before);
    expect(before).toContain('"protocolBinding":"REST"');
  });
});

describe("what the runner does not know", () => {
  it("an unknown assertion operator is an error naming it and where", async () => {
    const t = await only(sourceOf("X-010", `${WORKING_TASK}            expect_parsed: { artifacts: { count_more: 1 } }\n`));
    expect(t.result).toBe("error");
    expect(t.failures[0]).toMatch(/^X-010 step parse: artifacts: unknown assertion operator "count_more" \(the operators: type, exists/);
  });

  it("an unknown operation is an error naming it", async () => {
    const t = await only(
      sourceOf("X-011", `            client_response: { operation: send_telegram, wire_payload: {} }\n            expect_parsed: {}\n`),
    );
    expect(t.result).toBe("error");
    expect(t.failures[0]).toMatch(/^X-011 step parse: unknown operation "send_telegram" \(the operations: send_message,/);
  });

  it("a runner-special test the runner has no check for is an error naming it", async () => {
    const t = await only(sourceOf("X-012", `${WORKING_TASK}            expect_parsed: { id: t1 }\n`, "[client, runner-special]"));
    expect(t.result).toBe("error");
    expect(t.failures[0]).toMatch(/runner-special test X-012 has no check in this runner/);
  });

  it("a document of another ACTS major version, or without suites, is refused", () => {
    expect(() => parseDocument('acts_version: "2.0"\nspec_version: "1.0"\nsuites: []\n')).toThrow(
      /acts_version "2.0" is not of major version 1/,
    );
    expect(() => parseDocument('acts_version: "1.0"\nspec_version: "1.0"\ninclude: [a.yaml]\n')).toThrow(/no suites/);
  });

  it("a missing data directory fails saying where the data should be", () => {
    expect(() => loadSource("/nonexistent/conformance")).toThrow(
      /the ACTS data is not at \/nonexistent\/conformance: .*\.\.\/shared\/conformance\//,
    );
  });
});

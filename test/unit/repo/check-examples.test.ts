/**
 * `npm run check:examples` (scripts/check-examples.ts): the `@example`s of
 * the doc comments are found as TypeDoc shows them, and the code blocks of
 * the guides as GitHub shows them, compiled against the package's entries,
 * and a broken one is reported with the line it is on.
 */
import { describe, expect, it } from "vitest";
import {
  checkExamples,
  examplesIn,
  examplesInGuides,
  examplesInMarkdown,
  examplesInSources,
  type Example,
} from "../../../scripts/check-examples.js";

const FIXTURE = `import { connect } from "./client.js";

/**
 * Connects.
 *
 * @example
 * \`\`\`ts
 * import { connect } from "a2a-connect";
 * const session = await connect("https://agent.example.com");
 * @sealed
 * class Box {}
 * \`\`\`
 * \`\`\`sh
 * npm install a2a-connect
 * \`\`\`
 * @category Connect and call
 */
export const start = connect;

export class Thing {
  /**
   * A method.
   * @example
   * const thing = new Thing();
   * thing.run();
   * @remarks Not part of the example.
   */
  run(): void {}

  /** No example here: \`@example\` in a sentence is not a tag. */
  stop(): void {}

  /** @example new Thing().stop(); */
  reset(): void {}
}
`;

describe("examplesIn", () => {
  const examples = examplesIn("src/fixture.ts", FIXTURE);

  it("finds fenced ts blocks, and an example without fences whole, with the symbol and line of each", () => {
    expect(examples.map(({ symbol, line }) => ({ symbol, line }))).toEqual([
      { symbol: "start", line: 8 },
      { symbol: "Thing.run", line: 24 },
      { symbol: "Thing.reset", line: 33 },
    ]);
    expect(examples[0]?.code).toBe(
      [
        'import { connect } from "a2a-connect";',
        'const session = await connect("https://agent.example.com");',
        // A line that starts with "@" inside a fence is code, not a tag.
        "@sealed",
        "class Box {}",
      ].join("\n"),
    );
    expect(examples[1]?.code).toBe("const thing = new Thing();\nthing.run();");
    expect(examples[2]?.code).toBe("new Thing().stop();");
  });

  it("leaves out blocks in other languages and text after the next block tag", () => {
    const all = examples.map((e) => e.code).join("\n");
    expect(all).not.toContain("npm install");
    expect(all).not.toContain("Not part of the example");
  });
});

describe("checkExamples", () => {
  const at = (code: string, line: number): Example => ({ file: "src/fixture.ts", line, symbol: "fixture", code });

  it("passes examples that compile against the entries and reports a broken one at its line in the doc comment", async () => {
    const good = at(
      [
        'import { connect, userMessage, textOf } from "a2a-connect";',
        'import { createGrpcTransport } from "a2a-connect/node";',
        'import { verifyAgentCard } from "a2a-connect/trust";',
        'import { toA2AError } from "a2a-connect/toolkit";',
        'const { client } = await connect("https://agent.example.com");',
        'console.log(textOf(await client.sendMessage({ message: userMessage("hi") })), createGrpcTransport, verifyAgentCard, toA2AError);',
      ].join("\n"),
      10,
    );
    // A renamed option and a wrong argument type, as a stale example would have them.
    const broken = at(
      [
        'import { connect } from "a2a-connect";',
        'const session = await connect("https://agent.example.com", { preferedBindings: ["JSONRPC"] });',
        "await session.client.getTask({ id: 42 });",
      ].join("\n"),
      40,
    );
    const problems = await checkExamples([good, broken]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^src\/fixture\.ts:41:\d+ \(@example of fixture\): error TS\d+: .*preferedBindings/);
    expect(problems[1]).toMatch(/^src\/fixture\.ts:42:\d+ \(@example of fixture\): error TS2322: .*number.*string/);
  }, 240_000);
});

describe("the examples in src/", () => {
  // The entry points a user starts from, each shown with code.
  const STARTS = [
    "connect",
    "ConnectOptions",
    "A2AClient",
    "A2AClient.sendMessage",
    "A2AClient.sendStreamingMessage",
    "A2AClient.getTask",
    "A2AClient.listTasks",
    "A2AClient.subscribeToTask",
    "A2AClient.createTaskPushNotificationConfig",
    "StreamCallOptions",
    "TaskTracker",
    "listTasksPages",
    "replyTo",
    "followUp",
    "userMessage",
    "textOf",
    "taskIdOf",
    "toProtoJson",
    "fromProtoJson",
    "A2AError",
    "A2AErrorCode",
    "resolveAgentCard",
    "verifyAgentCard",
    "VerifyOptions",
    "signAgentCard",
    "AuthCredentials",
    "bearerAuth",
    "basicAuth",
    "apiKeyAuth",
    "clientCredentialsProvider",
    "discoveredTokenProvider",
    "authInterceptors",
    "createPushReceiver",
    "createNodePushHandler",
    "listAllTaskPushNotificationConfigs",
    "createJsonRpcTransport",
    "createRestTransport",
    "createGrpcTransport",
    "createGrpcWebTransport",
    "loggingInterceptor",
    "createConnect",
    "lazyTransport",
    "toA2AError",
    "parseCard",
  ];

  it("include one for every entry point a user starts from, each importing the package by name", async () => {
    const examples = await examplesInSources();
    const symbols = new Set(examples.map((e) => e.symbol));
    expect(STARTS.filter((s) => !symbols.has(s))).toEqual([]);
    const relative = examples.filter((e) => /from "\.{1,2}\//.test(e.code)).map((e) => `${e.file}:${e.line}`);
    expect(relative).toEqual([]);
  });
});

const GUIDE = `# Retries

Text.

\`\`\`ts
import { connect } from "a2a-connect";
const session = await connect("https://agent.example.com", { retry: { atempts: 4 } });
\`\`\`

## In a shell

\`\`\`sh
npm install a2a-connect
\`\`\`

\`\`\`
src/    a tree, not code
\`\`\`

\`\`\`js
import { connect } from "a2a-connect";
\`\`\`
`;

describe("examplesInMarkdown", () => {
  it("finds the ts and js blocks of a guide, each with its line and the heading above it", () => {
    const examples = examplesInMarkdown("docs/retries.md", GUIDE);
    expect(examples.map(({ line, symbol, js }) => ({ line, symbol, js }))).toEqual([
      { line: 6, symbol: "Retries", js: undefined },
      { line: 21, symbol: "In a shell", js: true },
    ]);
    expect(examples[0]?.code).toBe(
      'import { connect } from "a2a-connect";\nconst session = await connect("https://agent.example.com", { retry: { atempts: 4 } });',
    );
  });

  it("marks a block as a fragment when the line before its fence says so, and no other", () => {
    const marked = GUIDE.replace("\n\n```js", "\n<!-- fragment -->\n```js");
    const examples = examplesInMarkdown("docs/retries.md", marked);
    expect(examples.map(({ line, fragment }) => ({ line, fragment }))).toEqual([
      { line: 6, fragment: undefined },
      { line: 21, fragment: true },
    ]);
    // A blank line between the comment and the fence: the comment is prose's, not the block's.
    expect(examplesInMarkdown("docs/retries.md", GUIDE.replace("\n\n```js", "\n<!-- fragment -->\n\n```js"))[1]?.fragment).toBeUndefined();
  });

  it("reports a block that does not compile at its line in the guide, under its heading", async () => {
    const problems = await checkExamples(examplesInMarkdown("docs/retries.md", GUIDE));
    expect(problems).toEqual([expect.stringMatching(/^docs\/retries\.md:7:\d+ \(example under "Retries"\): error TS\d+: .*atempts/)]);
  }, 240_000);
});

describe("the examples in the guides", () => {
  it("compile against the package's entries, each a module of its own that imports what it uses", async () => {
    const examples = await examplesInGuides();
    expect(new Set(examples.map((e) => e.file)).size).toBeGreaterThanOrEqual(10);
    expect(await checkExamples(examples)).toEqual([]);
  }, 240_000);
});

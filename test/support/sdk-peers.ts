/**
 * The official A2A servers of every SDK we can install here, and framework
 * servers users run, as test peers: the installed TypeScript SDK in-process
 * (demo/agent.ts), and the others as small programs of ours under
 * test/peers/<name>/ (Python, Go and Java 0.3 SDKs; @a2a-js/sdk 0.3.14, FastA2A,
 * Google ADK, VoltAgent and Mastra), each serving the same scripted agent
 * (the script is described at the top of demo/agent.ts) on 127.0.0.1, on
 * every binding and version it offers.
 *
 * A program peer takes its ports on its command line, prints `ready` once
 * everything listens, and exits on SIGTERM or when its stdin closes (so a
 * peer whose test process died does not linger). `npm run peers` (run by
 * `npm test` first) installs them; a peer that is not installed fails its
 * tests with the command that installs it, except Java 1.x, whose install
 * records why it could not be had (test/peers/java/UNAVAILABLE), and whose
 * tests then skip with that reason.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startLocalAgent } from "../../demo/agent.js";
import type { Binding } from "../../src/index.js";
import { deadPort } from "./ports.js";

export type PeerId =
  | "typescript"
  | "typescript-0.3"
  | "python"
  | "go"
  | "java"
  | "java-0.3"
  | "rust"
  | "fasta2a"
  | "adk"
  | "voltagent"
  | "mastra";
export type PeerVersion = "1.0" | "0.3";

/** One interface a peer serves: what its card must list and the tests run on. */
export interface Served {
  binding: Binding;
  version: PeerVersion;
}

/** A peer that runs: where its card is, and how to stop it. */
export interface RunningPeer {
  /** "http://127.0.0.1:PORT" */
  origin: string;
  /** The card's URL: `{origin}/.well-known/agent-card.json`. */
  cardUrl: string;
  /** The gRPC port. */
  grpcPort: number;
  /** What the peer wrote on stderr lately, for failure messages. */
  log(): string;
  close(): Promise<void>;
}

export interface PeerSpec {
  id: PeerId;
  /** SDK and release, as the matrix and test titles name it. */
  label: string;
  /** Every interface the peer serves, 1.0 first. */
  serves: readonly Served[];
  /** Whether its SDK signs the card (with the SDK's own signer). */
  signsCard: boolean;
  /** The path of the URL an app gives `connect()` for this agent, when not its origin. */
  agentPath?: string;
  /** For a peer run only when asked for, how to ask: the matrix keeps its rows from the last run that had it. */
  optional?: string;
  /** Why the peer cannot run on this machine, when its build recorded a reason; undefined when it can. */
  unavailable(): string | undefined;
  start(): Promise<RunningPeer>;
}

const ALL: readonly Served[] = (["1.0", "0.3"] as const).flatMap((version) =>
  (["JSONRPC", "HTTP+JSON", "GRPC"] as const).map((binding) => ({ binding, version })),
);

const PEERS_DIR = fileURLToPath(new URL("../peers/", import.meta.url));
const INSTALL_HINT = "run `npm run peers` to install the peers";
/** Time a program peer has to say `ready`: the JVM's start is the slowest, a few seconds here. */
const READY_MS = 60_000;
const STOP_MS = 3_000;

/** Keeps the last few KB a child wrote, for the message of a test that fails against it. */
function tail(stream: NodeJS.ReadableStream | null): () => string {
  let text = "";
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => {
    text = (text + chunk).slice(-8_192);
  });
  return () => text;
}

function waitForReady(child: ChildProcess, what: string, log: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const done = (err?: Error) => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
      if (err) reject(err);
      else resolve();
    };
    const onData = (chunk: string) => {
      seen += chunk;
      if (/^ready$/m.test(seen)) done();
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(new Error(`${what} exited (${signal ?? `code ${code}`}) before it was ready; its stderr:\n${log()}`));
    const timer = setTimeout(() => done(new Error(`${what} did not say ready within ${READY_MS} ms; its stderr:\n${log()}`)), READY_MS);
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_MS);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin?.end();
    child.kill("SIGTERM");
  });
}

/** Starts a program peer: `command ...args --port P --grpc-port G`, ready when it says so; `installed` must exist. */
async function startProgram(label: string, command: string, args: readonly string[], installed = command): Promise<RunningPeer> {
  if (!existsSync(installed)) throw new Error(`${label}: ${installed} is missing: ${INSTALL_HINT}`);
  const port = await deadPort();
  const grpcPort = await deadPort();
  const child = spawn(command, [...args, "--port", String(port), "--grpc-port", String(grpcPort)], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin?.on("error", () => {});
  const log = tail(child.stderr);
  try {
    await waitForReady(child, label, log);
  } catch (err) {
    await stop(child);
    throw err;
  }
  const origin = `http://127.0.0.1:${port}`;
  return { origin, cardUrl: `${origin}/.well-known/agent-card.json`, grpcPort, log, close: () => stop(child) };
}

const inPeers = (...path: string[]) => PEERS_DIR + path.join("/");

export const TYPESCRIPT_PEER: PeerSpec = {
  id: "typescript",
  label: "@a2a-js/sdk 1.3 (TypeScript)",
  serves: ALL,
  signsCard: false,
  unavailable: () => undefined,
  async start() {
    const agent = await startLocalAgent({ versions: ["1.0", "0.3"] });
    return {
      origin: agent.origin,
      cardUrl: agent.cardUrl,
      grpcPort: Number(agent.grpcAddress.split(":").at(-1)),
      log: () => "",
      close: () => agent.close(),
    };
  },
};

export const PYTHON_PEER: PeerSpec = {
  id: "python",
  label: "a2a-sdk 1.3.0 (Python)",
  serves: ALL,
  signsCard: true,
  unavailable: () => undefined,
  start: () => startProgram("the Python peer", inPeers("python", ".venv", "bin", "python"), [inPeers("python", "agent.py")]),
};

export const GO_PEER: PeerSpec = {
  id: "go",
  label: "a2a-go 2.3.1 (Go)",
  serves: ALL,
  signsCard: false,
  unavailable: () => undefined,
  start: () => startProgram("the Go peer", inPeers("go", "peer"), []),
};

const JAVA_UNAVAILABLE = inPeers("java", "UNAVAILABLE");

/**
 * The Java SDK 1.x's reference servers: required once Maven Central serves
 * them here; until then its suite skips with the reason its install recorded.
 * Its program (java/v1/run) is to be written then: till it is, the suite
 * fails, saying it is missing.
 */
export const JAVA_PEER: PeerSpec = {
  id: "java",
  label: "a2a-java 1.2.0.Final (Java)",
  serves: ALL.filter((s) => s.version === "1.0"),
  signsCard: false,
  unavailable: () => (existsSync(JAVA_UNAVAILABLE) ? readFileSync(JAVA_UNAVAILABLE, "utf8").trim() : undefined),
  start: () => startProgram("the Java 1.x peer", inPeers("java", "v1", "run"), []),
};

/**
 * The Java SDK's A2A 0.3 line (io.github.a2asdk 0.3.3.Final, on Quarkus):
 * its JSON-RPC, HTTP+JSON and gRPC reference servers (the gRPC glue at
 * 0.3.2.Final, the same code, as Maven Central has no 0.3.3.Final of it).
 * `run` starts the JVM on the app `mvn package` built.
 */
export const JAVA_03_PEER: PeerSpec = {
  id: "java-0.3",
  label: "a2a-java 0.3.3.Final (Java)",
  serves: ALL.filter((s) => s.version === "0.3"),
  signsCard: false,
  unavailable: () => undefined,
  start: () => startProgram("the Java 0.3 peer", inPeers("java", "run"), [], inPeers("java", "target", "quarkus-app", "quarkus-run.jar")),
};

/**
 * The Rust A2A server crates (a2a-server-lf 0.5.3, a2a-grpc 0.3.11): A2A 1.0
 * only, optional, since they build for minutes on two cores. Run with
 * A2A_RUST_PEER=1 (vitest.config.ts leaves its suite out otherwise).
 */
export const RUST_PEER: PeerSpec = {
  id: "rust",
  label: "a2a-server-lf 0.5.3 (Rust)",
  serves: ALL.filter((s) => s.version === "1.0"),
  signsCard: false,
  optional: "run with A2A_RUST_PEER=1 (its build takes 4 to 12 minutes cold)",
  unavailable: () => (process.env.A2A_RUST_PEER === "1" ? undefined : "optional, not asked for"),
  start: () => startProgram("the Rust peer", inPeers("rust", "target", "release", "peer"), []),
};

/** A peer of test/peers/npm-frameworks, run by this Node. */
function npmPeer(label: string, file: string): () => Promise<RunningPeer> {
  return () => startProgram(label, process.execPath, [inPeers("npm-frameworks", file)], inPeers("npm-frameworks", "node_modules"));
}

/**
 * @a2a-js/sdk 0.3.14, the A2A 0.3 release of the TypeScript SDK that Gemini
 * CLI's A2A server and most npm frameworks embed: the whole script, 0.3 only.
 */
export const TYPESCRIPT_03_PEER: PeerSpec = {
  id: "typescript-0.3",
  label: "@a2a-js/sdk 0.3.14 (TypeScript)",
  serves: ALL.filter((s) => s.version === "0.3"),
  signsCard: false,
  unavailable: () => undefined,
  start: npmPeer("the @a2a-js/sdk 0.3.14 peer", "sdk-0.3.js"),
};

/** Every official SDK's peer, the TypeScript one first (the one the rest of the suite runs against). */
export const SDK_PEERS: readonly PeerSpec[] = [
  TYPESCRIPT_PEER,
  TYPESCRIPT_03_PEER,
  PYTHON_PEER,
  GO_PEER,
  JAVA_PEER,
  JAVA_03_PEER,
  RUST_PEER,
];

/**
 * Framework servers users run: FastA2A (Pydantic AI's A2A server), Google
 * ADK's `to_a2a`, VoltAgent and Mastra, each on a scripted mock model,
 * JSON-RPC only. They meet the script only as far as the framework lets an
 * agent act it (see each folder's README).
 */
export const FASTA2A_PEER: PeerSpec = {
  id: "fasta2a",
  label: "FastA2A 2.1.1 (Pydantic AI)",
  serves: [{ binding: "JSONRPC", version: "1.0" }],
  signsCard: false,
  unavailable: () => undefined,
  start: () => startProgram("the FastA2A peer", inPeers("fasta2a", ".venv", "bin", "python"), [inPeers("fasta2a", "agent.py")]),
};

export const ADK_PEER: PeerSpec = {
  id: "adk",
  label: "Google ADK 2.13.0 (a2a-sdk 1.3.0)",
  serves: [
    { binding: "JSONRPC", version: "1.0" },
    { binding: "JSONRPC", version: "0.3" },
  ],
  signsCard: false,
  unavailable: () => undefined,
  start: () => startProgram("the Google ADK peer", inPeers("adk", ".venv", "bin", "python"), [inPeers("adk", "agent.py")]),
};

/** VoltAgent's A2A server (@voltagent/a2a-server), JSON-RPC in A2A 0.3's shape, its card under the agent's id. */
export const VOLTAGENT_PEER: PeerSpec = {
  id: "voltagent",
  label: "VoltAgent a2a-server 2.0.3",
  serves: [{ binding: "JSONRPC", version: "0.3" }],
  signsCard: false,
  agentPath: "/a2a/a2a-connect-voltagent-peer",
  unavailable: () => undefined,
  start: npmPeer("the VoltAgent peer", "voltagent.js"),
};

/** Mastra 0.24.9's A2A routes (Mastra 1.x needs Node 22), JSON-RPC in A2A 0.3's shape. */
export const MASTRA_PEER: PeerSpec = {
  id: "mastra",
  label: "Mastra 0.24.9",
  serves: [{ binding: "JSONRPC", version: "0.3" }],
  signsCard: false,
  agentPath: "/a2a/a2a-connect-mastra-peer",
  unavailable: () => undefined,
  start: npmPeer("the Mastra peer", "mastra.js"),
};

export const FRAMEWORK_PEERS: readonly PeerSpec[] = [FASTA2A_PEER, ADK_PEER, VOLTAGENT_PEER, MASTRA_PEER];

/**
 * The kit's agent: the official @a2a-js/sdk server (demo/agent.ts starts it)
 * on the kit's layout, with the kit's executor behind it.
 *
 * What the kit expects of an agent it starts: the card at
 * `http://127.0.0.1:{httpPort}/.well-known/agent-card.json` (its readiness
 * check), JSON-RPC at `/jsonrpc` (where it sends the first instruction),
 * HTTP+JSON at `/rest`, gRPC on `grpcPort`, each at A2A 1.0 and 0.3 (its 0.3
 * agents call at 0.3), and push notifications.
 */
import { startLocalAgent, type LocalAgent, type ServerSdk } from "../demo/agent.js";
import { ItkExecutor, type ItkExecutorOptions } from "./executor.js";
import { INSTRUCTION_MEDIA_TYPE } from "./instruction.js";
import { Outbound, type OutboundOptions } from "./outbound.js";

/** Options of `startItkAgent`. */
export interface ItkAgentOptions extends OutboundOptions, ItkExecutorOptions {
  /** HTTP port (card, JSON-RPC, HTTP+JSON); 0 (default) picks a free one. */
  httpPort?: number;
  /** gRPC port; 0 (default) picks a free one. */
  grpcPort?: number;
  /** The SDK release that serves; default the installed one. */
  sdk?: ServerSdk;
}

/** A running kit agent: the local agent's addresses, and `close()`. */
export type ItkAgent = Pick<LocalAgent, "origin" | "jsonRpcUrl" | "restUrl" | "grpcAddress" | "cardUrl" | "close">;

export async function startItkAgent(options: ItkAgentOptions = {}): Promise<ItkAgent> {
  const executor = new ItkExecutor(new Outbound(options), options);
  const agent = await startLocalAgent({
    port: options.httpPort ?? 0,
    grpcPort: options.grpcPort ?? 0,
    versions: ["1.0", "0.3"],
    paths: { jsonRpc: "/jsonrpc", rest: "/rest" },
    executor,
    sdk: options.sdk,
    describe: {
      name: "a2a-connect ITK agent",
      description: "Runs the A2A interop test kit's instructions; every call to another agent goes through a2a-connect.",
      defaultInputModes: [INSTRUCTION_MEDIA_TYPE, "text/plain"],
      skills: [
        {
          id: "itk-instruction",
          name: "Interop kit instruction",
          description: "Answers, calls other agents on the binding asked for, or runs a series of steps, as the Instruction says.",
          tags: ["itk", "interop"],
          examples: [],
          inputModes: [INSTRUCTION_MEDIA_TYPE],
          outputModes: ["text/plain"],
          securityRequirements: [],
        },
      ],
    },
  });
  let closing: Promise<void> | undefined;
  return {
    origin: agent.origin,
    jsonRpcUrl: agent.jsonRpcUrl,
    restUrl: agent.restUrl,
    grpcAddress: agent.grpcAddress,
    cardUrl: agent.cardUrl,
    close() {
      // Holds and outbound calls end first, so no task outlives the servers.
      executor.abortAll();
      closing ??= agent.close();
      return closing;
    },
  };
}

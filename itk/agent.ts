/**
 * `npm run itk-agent -- --httpPort H --grpcPort G`: the agent the A2A interop
 * test kit (a2aproject/a2a-itk) starts for this SDK, as it starts every SDK's
 * (`--httpPort=H` works too). It serves until SIGTERM or Ctrl-C, and prints
 * one line when ready (stdout), and on stderr one per call it makes to
 * another agent (binding, version, method, URL, outcome) and one per task
 * that fails.
 */
import { parseArgs } from "node:util";
import { closeOnSignals } from "../demo/close-on-signal.js";
import { startItkAgent } from "./server.js";

const usage = "usage: npm run itk-agent -- --httpPort <port> --grpcPort <port>";

function port(value: string | undefined, flag: string): number {
  const n = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || n > 65535) {
    console.error(`--${flag}: not a port: ${value ?? "(missing)"}\n${usage}`);
    process.exit(2);
  }
  return n;
}

let values: { httpPort?: string; grpcPort?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: { httpPort: { type: "string" }, grpcPort: { type: "string" }, help: { type: "boolean", short: "h" } },
  }));
} catch (e) {
  console.error(`${(e as Error).message}\n${usage}`);
  process.exit(2);
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const agent = await startItkAgent({
  httpPort: port(values.httpPort, "httpPort"),
  grpcPort: port(values.grpcPort, "grpcPort"),
  log: (line) => console.error(line),
});
console.log(`itk agent ready: card ${agent.cardUrl}, JSON-RPC ${agent.jsonRpcUrl}, HTTP+JSON ${agent.restUrl}, gRPC ${agent.grpcAddress}`);

closeOnSignals(agent);

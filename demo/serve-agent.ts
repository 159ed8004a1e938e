/**
 * `npm run agent`: starts the local agent (demo/agent.ts) with CORS on, so
 * pages from another origin (examples/browser) can call it, and keeps it
 * running until Ctrl-C. `-- --port N` picks the HTTP port (default 41241).
 */
import { parseArgs } from "node:util";
import { startLocalAgent } from "./agent.js";
import { closeOnSignals } from "./close-on-signal.js";

const { values } = parseArgs({ options: { port: { type: "string", default: "41241" } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port: not a port: ${values.port}`);
  process.exit(2);
}

const agent = await startLocalAgent({ cors: true, port });
console.log(`local A2A agent (CORS on), Ctrl-C to stop
  agent card  ${agent.cardUrl}
  JSON-RPC    ${agent.jsonRpcUrl}
  HTTP+JSON   ${agent.restUrl}
  gRPC        ${agent.grpcAddress}
  try "echo hello", "count 5 every 300", "fail"`);

closeOnSignals(agent);

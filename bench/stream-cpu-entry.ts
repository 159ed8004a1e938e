/** What `npm run bench:stream` measures (bench/stream-cpu.ts), bundled as one module. */
export { jsonReaders } from "../gen/lf/a2a/v1/a2a_json_readers.js";
export { DecodedEvents } from "../src/http/decoded-events.js";
export { sseDecoder } from "../src/http/sse.js";
export { A2AClient, createJsonRpcTransport, createRestTransport, userMessage } from "../src/node.js";

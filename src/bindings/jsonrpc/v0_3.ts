/**
 * The JSON-RPC binding of A2A 0.3, behind the 1.0 types: calls are made
 * with the 1.0 `A2AService` methods and messages, go on the wire as 0.3
 * JSON-RPC requests (`message/send`, `tasks/get`, ...), and their 0.3
 * results come back as 1.0 messages. The payload shapes live in
 * ./v0_3-shapes.ts, over the one 0.3 translation of meaning in ../../v0_3/.
 */
import type { JsonValue } from "@bufbuild/protobuf";
import type { GeneratedJson } from "../../protocol/proto-json.js";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { UnsupportedOperationError } from "../../errors/family.js";
import type { BindingCodec } from "../../http/codec.js";
import type { HttpTransportOptions } from "../../call/options.js";
import type { A2ATransport } from "../../call/transport.js";
import { v03Row } from "../../v0_3/methods.js";
import { V03_CALLS, historyLengthOf, withHistoryCap, type JsonRpcV03Call } from "./v0_3-shapes.js";
import type { V03Kit } from "../v0_3-kit.js";

/** The protocol version this transport announces unless told otherwise. */
export const V03_PROTOCOL_VERSION = "0.3";

/**
 * A transport for an agent that speaks A2A 0.3 over JSON-RPC. It announces
 * `A2A-Version: 0.3` (override with `protocolVersion`). Operations 0.3 does
 * not have (ListTasks) fail with `UnsupportedOperationError` before any
 * request is sent. With the `generated` ProtoJSON readers and writers where
 * given, as the 1.0 one. `kit` is the code of the start it is built on
 * (bindings/v0_3-kit.ts).
 */
export function createJsonRpcTransportV03(kit: V03Kit, options: HttpTransportOptions, generated?: GeneratedJson): A2ATransport {
  kit.checkTransportOptions(options, kit.checkHttpBaseUrl);
  return kit.createHttpBindingTransport(
    {
      ...options,
      protocolVersion: options.protocolVersion ?? V03_PROTOCOL_VERSION,
      httpClient: withV03ExtensionsHeader(kit, options.httpClient ?? kit.createFetchHttpClient()),
    },
    jsonRpcCodecV03(kit, options.baseUrl, generated?.writers),
    generated,
  );
}

function jsonRpcCodecV03(kit: V03Kit, url: string, writers: GeneratedJson["writers"] | undefined): BindingCodec {
  const codec = kit.jsonRpcCodec(url, (envelope) => (method, message) => {
    const call = v03Row<JsonRpcV03Call>(V03_CALLS, method);
    if (call === undefined) {
      throw new UnsupportedOperationError(`the agent speaks A2A 0.3, which has no ${method.name} operation`, {
        binding: "JSONRPC",
      });
    }
    const request = kit.messageToJson(method.input, message, writers) as Record<string, unknown>;
    const params = call.params(request);
    return {
      ...envelope.request(method, message, { params: params as JsonValue | undefined, name: call.method }),
      historyLength: historyLengthOf(request),
    };
  });
  return {
    ...codec,
    // 1.0 reads a cap of 0 as "no history", some 0.3 agents as "no cap",
    // and not every 0.3 agent applies the cap: held to here, as the proto
    // translation does for gRPC and HTTP+JSON 0.3 (v0_3/messages.ts).
    result: (json, plan, facts) => withHistoryCap(codec.result(json, plan, facts), plan.historyLength),
    toProtoJson: (method, json) => {
      // plan() refused every method without a row before a request was made.
      const call = v03Row<JsonRpcV03Call>(V03_CALLS, method);
      return call ? call.result(json, kit) : json;
    },
  };
}

/**
 * 0.3 agents read activated extensions from `X-A2A-Extensions`; 1.0 renamed
 * it `A2A-Extensions`. Requests carry both.
 */
function withV03ExtensionsHeader(kit: V03Kit, next: UniversalClientFn): UniversalClientFn {
  return (req) => {
    kit.addV03ExtensionsHeader(req.header);
    return next(req);
  };
}

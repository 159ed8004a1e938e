/**
 * The JSON-RPC 2.0 binding (spec section 9): every call is a POST of a
 * request object to the interface URL; the two streaming methods answer
 * with SSE whose events carry JSON-RPC response objects.
 */
import type { DescMessage, DescMethod, JsonObject, JsonValue, MessageShape } from "@bufbuild/protobuf";
import { messageToJson, type GeneratedJson } from "../../protocol/proto-json.js";
import { ProtocolError, type A2AError } from "../../errors/family.js";
import { isRecord } from "../../base/is-record.js";
import { createHttpBindingTransport } from "../../http/binding-transport.js";
import { UnreadError, type ErrorReading } from "../../http/failure-reading.js";
import type { BindingCodec, HttpPlan, ResponseFacts } from "../../http/codec.js";
import type { HttpTransportOptions } from "../../call/options.js";
import { checkHttpBaseUrl, checkTransportOptions } from "../../call/option-checks.js";
import type { A2ATransport } from "../../call/transport.js";

/** Options of the JSON-RPC transport; `baseUrl` is the interface URL requests are POSTed to. @category Transports */
export type JsonRpcTransportOptions = HttpTransportOptions;

/**
 * A transport for an A2A 1.0 JSON-RPC interface.
 * @example
 * ```ts
 * import { A2AClient, createJsonRpcTransport } from "a2a-connect";
 *
 * const client = new A2AClient(
 *   createJsonRpcTransport({ baseUrl: "https://agent.example.com/a2a/jsonrpc", timeoutMs: 30_000, headers: { "x-tenant": "acme" } }),
 * );
 * ```
 * @category Transports
 */
export function createJsonRpcTransport(options: JsonRpcTransportOptions): A2ATransport {
  return jsonRpcTransport(options);
}

/** The JSON-RPC 1.0 transport, with the `generated` ProtoJSON readers and writers where given (the Node entry's). */
export function jsonRpcTransport(options: JsonRpcTransportOptions, generated?: GeneratedJson): A2ATransport {
  checkTransportOptions(options, checkHttpBaseUrl);
  // A call is the envelope's request as it is: the message's ProtoJSON as params.
  return createHttpBindingTransport(
    options,
    jsonRpcCodec(options.baseUrl, (envelope) => envelope.request, generated?.writers),
    generated,
  );
}

/**
 * The codec of a JSON-RPC transport POSTing to `url`: the 1.0 binding and
 * the 0.3 one share the envelope and differ in how a call becomes a request
 * (the `plan` made with the envelope). The envelope writes a message's
 * params with the `writers` where given.
 */
export function jsonRpcCodec(
  url: string,
  planWith: (envelope: JsonRpcEnvelope) => BindingCodec["plan"],
  writers?: GeneratedJson["writers"],
): BindingCodec {
  const envelope = jsonRpcEnvelope(url, writers);
  return {
    binding: "JSONRPC",
    contentType: "application/json",
    accept: "application/json",
    plan: planWith(envelope),
    result: envelope.result,
    error: envelope.error,
  };
}

/**
 * The JSON-RPC 2.0 envelope, whatever the methods inside it: numbered
 * requests, responses checked against the request id, error objects mapped
 * to `A2AError`s.
 */
export interface JsonRpcEnvelope {
  /**
   * A POST of a request object calling `method` with `message`: its params
   * are the message's ProtoJSON and its name the method's own, PascalCase as
   * the proto's (spec 9.1), unless `as` gives both, as another version
   * names and writes the call (`params` is left out when undefined).
   */
  request(method: DescMethod, message: MessageShape<DescMessage>, as?: { params: JsonValue | undefined; name: string }): HttpPlan;
  /** The `result` of a response object; throws the error it carries (an `UnreadError`). */
  result(json: unknown, plan: HttpPlan, facts: ResponseFacts): unknown;
  /** The error an error response or an `event: error` frame describes, read with the code that reads errors. */
  error(json: unknown, facts: ResponseFacts, reading: ErrorReading): A2AError;
}

/** The JSON-RPC envelope for requests POSTed to `url`, with ids numbered from 1 and params written with `writers` where given. */
export function jsonRpcEnvelope(url: string, writers?: GeneratedJson["writers"]): JsonRpcEnvelope {
  let nextId = 1;
  return {
    request(method, message, as): HttpPlan {
      const id = nextId++;
      const params = as ? as.params : messageToJson(method.input, message, writers);
      const body: JsonObject = { jsonrpc: "2.0", id, method: as ? as.name : method.name };
      if (params !== undefined) body.params = params;
      return { url, method: "POST", body, id, emptyResult: method.output.typeName === EMPTY };
    },
    result(json: unknown, plan: HttpPlan, facts: ResponseFacts): unknown {
      if (!isRecord(json) || Array.isArray(json)) throw new ProtocolError("the response is not a JSON-RPC response object", facts);
      if (json.jsonrpc !== "2.0") {
        throw new ProtocolError(`the response is not a JSON-RPC 2.0 response ("jsonrpc" is ${describeValue(json.jsonrpc)})`, facts);
      }
      // Every response answers one request; a missing or another id is a
      // reply to something else (a confused proxy, a shared connection). An
      // error may have a null id: the server could not read the request's
      // (JSON-RPC 2.0 section 5). Our id written as a string ("2" for 2)
      // still names our request, unmistakably: the Java SDK's 0.3 server
      // answers tasks/pushNotificationConfig/set so.
      const isError = "error" in json && json.error != null;
      if (json.id !== plan.id && json.id !== String(plan.id) && !(isError && json.id === null)) {
        const mismatch = `the JSON-RPC response id ${describeValue(json.id)} does not match the request id ${plan.id}`;
        if (!isError) throw new ProtocolError(mismatch, facts);
        // Still refused (it may answer another request), but what the server said is kept: an error answers with the request's id, or null.
        const error = json.error;
        throw new UnreadError((m) => {
          const cause = envelopeError(error, facts, m);
          return new ProtocolError(`${mismatch}; the server breaks JSON-RPC 2.0 section 5, and its error (${cause.code}) is the cause`, {
            ...facts,
            cause,
          });
        });
      }
      if (isError) {
        const error = json.error;
        throw new UnreadError((m) => envelopeError(error, facts, m));
      }
      if (!("result" in json)) {
        // JSON-RPC 2.0 section 5 requires `result` on success; where the
        // method's result is empty anyway, its absence is unambiguous.
        if (plan.emptyResult) return null;
        throw new ProtocolError("the JSON-RPC response has neither result nor error", facts);
      }
      return json.result;
    },
    error(json: unknown, facts: ResponseFacts, m: ErrorReading): A2AError {
      if (isRecord(json) && isRecord(json.error)) {
        // Outside a JSON-RPC response, an `error` whose code is no JSON-RPC
        // code is a google.rpc.Status, as gateways send: its code is an HTTP status.
        return json.jsonrpc === "2.0" || m.isJsonRpcCode(json.error.code)
          ? envelopeError(json.error, facts, m)
          : m.rpcStatusError(json.error, facts);
      }
      // An `event: error` frame may carry the bare error object; a proxy's
      // `{"code": 404, "message": ...}` is not one.
      if (isRecord(json) && m.isJsonRpcCode(json.code)) return envelopeError(json, facts, m);
      return m.genericHttpError(json, facts);
    },
  };
}

const EMPTY = "google.protobuf.Empty";

/** A response's `error`: a JSON-RPC error object, or a ProtocolError when it is none. */
function envelopeError(error: unknown, facts: ResponseFacts, m: ErrorReading): A2AError {
  if (!isRecord(error)) return new ProtocolError("malformed JSON-RPC error object", facts);
  return m.jsonRpcError(error, facts);
}

/** A JSON value as a message shows it: `absent`, `"1.0"`, `7`. */
function describeValue(v: unknown): string {
  return v === undefined ? "absent" : JSON.stringify(v).slice(0, 40);
}

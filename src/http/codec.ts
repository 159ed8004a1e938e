/**
 * What the shared HTTP transport (binding-transport.ts) asks of a binding:
 * the codec that lays a call out on the wire and reads its answers, the
 * plan of one exchange, and, for calls whose verb servers disagree on, the
 * fallback to the other verb. Types only: the bindings implement them.
 */
import type { DescMessage, DescMethod, JsonValue, MessageShape } from "@bufbuild/protobuf";
import type { UniversalClientResponse } from "@connectrpc/connect/protocol";
import type { A2AError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import type { ErrorReading } from "./failure-reading.js";

/** One HTTP exchange as a binding lays it out. */
export interface HttpPlan {
  /** The full request URL, query included. */
  url: string;
  /** The HTTP method. */
  method: "GET" | "POST" | "DELETE";
  /** JSON body; undefined for GET and DELETE. */
  body?: JsonValue | undefined;
  /** What a response must echo (the JSON-RPC request id). */
  id?: number | undefined;
  /**
   * The history cap the request asked for, which the tasks of its answer
   * are held to where the peer may not apply it (A2A 0.3 JSON-RPC).
   */
  historyLength?: number | undefined;
  /**
   * The method answers with nothing (google.protobuf.Empty): a JSON-RPC
   * success without `result` still says it all (a2a-go and the Python
   * SDK's 0.3 surface leave it out of a delete's answer).
   */
  emptyResult?: boolean | undefined;
}

/** Facts about a response that error mapping needs. */
export interface ResponseFacts {
  /** The binding that received the response. */
  binding: Binding;
  /** The response's HTTP status. */
  httpStatus: number;
  /** The response's `WWW-Authenticate`, if any. */
  challenge: string | undefined;
  /** The response's `Retry-After`, in milliseconds. */
  retryAfterMs?: number | undefined;
  /** The URL the request went to, for messages (which name its origin and path only). */
  url: string;
  /** The method called, by its proto name, which tells apart errors that share a stated status. */
  method: string;
}

/** How one HTTP binding lays out calls and reads answers; the transport does the rest. */
export interface BindingCodec {
  /** The binding this codec speaks. */
  readonly binding: Binding;
  /** `Content-Type` of request bodies. */
  readonly contentType: string;
  /** `Accept` of unary requests. */
  readonly accept: string;
  /** The HTTP exchange for a call of `method` with `message`. */
  plan(method: DescMethod, message: MessageShape<DescMessage>): HttpPlan;
  /** The result JSON of a successful response body; throws the error it carries (an `UnreadError`, failure-reading.ts). */
  result(json: unknown, plan: HttpPlan, facts: ResponseFacts): unknown;
  /** The error an unsuccessful response or an `event: error` frame describes, read with the code that reads errors. */
  error(json: unknown, facts: ResponseFacts, reading: ErrorReading): A2AError;
  /**
   * For a streaming call whose HTTP verb servers disagree on: what was
   * learned and the other verb; undefined for every other call. Not asked
   * for a unary call, which goes by its route's verb. A codec with it has
   * `verbFallback` too.
   */
  verbChoice?(method: DescMethod, message: MessageShape<DescMessage>, plan: HttpPlan): VerbChoice | undefined;
  /**
   * Loads the code that settles a disputed verb after an unsuccessful first
   * answer: only then, since most agents route the verb tried first.
   */
  verbFallback?(): Promise<VerbFallback>;
  /**
   * Rewrites a result's JSON (what `result` returned, or one stream event's)
   * into the ProtoJSON of the method's output, for a binding whose wire
   * shapes are not the proto's. Absent: the JSON is parsed as it is.
   */
  toProtoJson?(method: DescMethod, json: unknown): unknown;
}

/** The verb question of one call, as the codec sees it. */
export interface VerbChoice {
  /** Whether the plan's verb was learned from an earlier answer of this interface. */
  readonly learned: boolean;
  /** The same call with the other verb. */
  other(): HttpPlan;
  /** Records the verb the server routes, for the calls that follow. */
  remember(verb: HttpPlan["method"]): void;
  /** Drops what was learned: the server stopped routing that verb. */
  forget(): void;
}

/** What the transport lends for the exchange. */
export interface VerbExchangeIo {
  /** Sends one request for `plan`. */
  send(plan: HttpPlan): Promise<UniversalClientResponse>;
  /** Reads an unsuccessful response to the end: the error it describes. */
  rejection(res: UniversalClientResponse): Promise<A2AError>;
}

/** What the binding's verb fallback module provides. */
export interface VerbFallback {
  /**
   * After an unsuccessful first answer `res`: the response to read (a
   * success, or an error read as usual), or throws the error that ends the
   * call. At most one more request is sent.
   */
  settleVerb(
    choice: VerbChoice,
    plan: HttpPlan,
    res: UniversalClientResponse,
    io: VerbExchangeIo,
  ): Promise<{ res: UniversalClientResponse; plan: HttpPlan }>;
}

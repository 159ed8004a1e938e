/**
 * `connect(url)`: the front door. Resolves and verifies the Agent Card,
 * chooses an interface (see select.ts for the rule), and returns a session
 * whose client fails over between the card's interfaces and, when asked,
 * falls back to an older protocol version.
 */
import { isMessage } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard, type AgentCardJson } from "../../gen/lf/a2a/v1/a2a_pb.js";
import {
  AbortedError,
  CallTimeoutError,
  ExtensionSupportRequiredError,
  InvalidParamsError,
  NoCompatibleInterfaceError,
} from "../errors/family.js";
import { isRecord } from "../base/is-record.js";
import { parsedUrl, safeInterfaceUrl } from "../base/urls.js";
import type { Binding } from "../base/bindings.js";
import {
  DEFAULT_TIMEOUT_MS as DEFAULT_DISCOVERY_TIMEOUT_MS,
  readCard,
  resolveAgentCard,
  verifyCardInHand,
  type ResolveOptions,
  type ResolvedAgentCard,
} from "../discovery/resolve.js";
import { resolveRelativeInterfaces } from "../discovery/relative-urls.js";
import { checkCardLocalUrls } from "../trust/local-urls.js";
import type { VerifyOptions } from "../trust/options.js";
import type { GrpcWebTransportOptions } from "../bindings/grpc/web.js";
import { grpcWebFactories, supportIn, transportFactories, type TransportFactories, type TransportSettings } from "../bindings/registry.js";
import type { A2ATransport } from "../call/transport.js";
import type { AuthCredentials } from "../auth/plan.js";
import { checkDuration, checkTransportNumbers, shownValue } from "../call/option-checks.js";
import { awaitWithin } from "../base/abort.js";
import { A2AClient } from "./client.js";
import { FailoverTransport, type VersionFallback } from "../call/failover.js";
import { bindingList, rankInterfaces, type SelectionRules } from "./select.js";
import { AgentSession } from "./session.js";
import type { RetryPolicy } from "../call/retry.js";
import { RETRY_KIT } from "../call/retry-kit.js";

/**
 * Options of `connect()`: discovery and verification, interface choice, and transport settings.
 * @example
 * ```ts
 * import { connect } from "a2a-connect";
 *
 * const session = await connect("https://agent.example.com", {
 *   timeoutMs: 10_000, // discovery, and each unary call of the session (streams: see timeoutMs)
 *   preferredBindings: ["JSONRPC"], // ahead of the card's order
 *   verify: "required", // the card must carry a signature that verifies
 *   auth: { bearer: { token: () => "token-from-your-login" } }, // by the card's scheme name
 *   transport: { headers: { "x-request-source": "docs" } },
 * });
 * ```
 * @category Connect and call
 */
export interface ConnectOptions extends ResolveOptions {
  /**
   * Milliseconds for discovery (the card, its key sets, code loaded on
   * demand; default 10 000) and the deadline of every unary call made
   * through the session (default 60 000), its retries and failover
   * included. Precedence for a call: its own `timeoutMs`, else
   * `transport.timeoutMs`, else this. A stream keeps its rule: no deadline
   * unless its call sets one, its silence bounded by
   * `transport.idleTimeoutMs`. 0 or Infinity: no limit for the calls, and
   * discovery keeps its default.
   */
  timeoutMs?: number | undefined;
  /**
   * Where a card given to `connect()` (its JSON, or an `AgentCard`) came
   * from: the absolute http(s) URL it was fetched from. The card is then
   * read as one fetched from there: a signature's `jku` is trusted on that
   * origin, relative interface URLs resolve against it, the extended card
   * is verified against it, and a URL on this machine is refused in a card
   * from another host (`localUrls`). Only with a card as the target: a URL
   * is where the card is fetched from, and a `resolveAgentCard` result
   * carries its own. Without it, a signed card verifies with pinned
   * `verification.keys`, or key sets on `verification.jku.allowedOrigins`.
   * @example
   * ```ts
   * import { readFile } from "node:fs/promises";
   * import { connect } from "a2a-connect";
   *
   * const card = JSON.parse(await readFile("agent-card.json", "utf8"));
   * const session = await connect(card, { cardUrl: "https://agent.example.com/.well-known/agent-card.json", verify: "required" });
   * ```
   */
  cardUrl?: string | undefined;
  /**
   * The only bindings the session may use, e.g. `["GRPC"]`: the card's
   * interfaces of other bindings are passed over, so no call fails over to
   * them, and a card without one of these fails with
   * NoCompatibleInterfaceError saying why each interface was passed over.
   * Default: every binding. `preferredBindings` ranks within them.
   */
  bindings?: readonly Binding[] | undefined;
  /**
   * Bindings to prefer over the card's order, e.g. `["GRPC", "JSONRPC"]`.
   * Without it (and `preferredVersions`) the card's first usable interface
   * is used, as spec 8.3.2 requires.
   */
  preferredBindings?: readonly Binding[] | undefined;
  /** Protocol versions to prefer over the card's order, e.g. `["1.0"]`; applied after `preferredBindings`. */
  preferredVersions?: readonly string[] | undefined;
  /** Protocol versions this client may speak; interfaces of others are passed over. Default ["1.0", "0.3"]. */
  protocolVersions?: readonly string[] | undefined;
  /**
   * What to do when an interface rejects its protocol version: "off"
   * (default) fails with VersionNotSupportedError naming what the card
   * offers; "auto" moves to an interface of an older version the card
   * declares and retries.
   */
  versionFallback?: VersionFallback | undefined;
  /**
   * Interfaces tried per call when one cannot be reached (refused, reset,
   * DNS, 502/503/504 without an A2A error). Default 3; 1 turns failover off.
   */
  maxAttempts?: number | undefined;
  /**
   * Retries of unary calls (see `RetryPolicy` and the retries guide, docs/retries.md).
   * Default: none. Each attempt is a pass of failover over the card's
   * interfaces (`maxAttempts`); the wait comes between passes, and the
   * call's timeout (its own, else `transport.timeoutMs`, else `timeoutMs`)
   * bounds them all.
   * Checked before the card is fetched: a bad field fails `connect()` with
   * InvalidParamsError.
   */
  retry?: RetryPolicy | undefined;
  /** Extensions to activate for every call of the session. */
  extensions?: readonly string[] | undefined;
  /** Options for every transport the session creates (timeouts, headers, interceptors...). */
  transport?: TransportSettings | undefined;
  /**
   * Reach the card's GRPC interfaces over gRPC-web, which browsers can
   * speak: pass `createGrpcWebTransport`. Their URLs must then lead to a
   * gRPC-web (or Connect) proxy in front of the agent. Without it, the
   * browser-safe entry passes GRPC interfaces over, and `a2a-connect/node`
   * uses HTTP/2 gRPC. (A function rather than a flag, so that apps that do
   * not use gRPC-web do not bundle it.)
   */
  grpcWeb?: ((options: GrpcWebTransportOptions) => A2ATransport) | undefined;
  /**
   * Credentials by the name of the card's security scheme, e.g.
   * `{ bearer: { token }, apiKey: { value }, oauth: { clientId, clientSecret } }`.
   * The first of the card's `securityRequirements` whose schemes all have
   * credentials is applied to every call, on every interface; when the card
   * requires authentication and none can be satisfied, `connect()` fails with
   * AuthenticationError before any call. A key that names no scheme of the
   * card goes to the one scheme its kind fits, else fails `connect()` with
   * AuthenticationError naming the card's schemes; a card that declares none
   * gets a token as `Authorization: Bearer` (see `AuthCredentials`).
   * Card-level requirements only (a skill's: `authInterceptors`). See the
   * auth guide, docs/auth.md.
   */
  auth?: AuthCredentials | undefined;
  /**
   * Send the `auth` credentials to interfaces on plain http at hosts other
   * than this machine. Default false: such interfaces (`http://` URLs, gRPC
   * without TLS) are passed over, since anyone on the way could read and
   * replay the credentials; loopback (`localhost`, 127.0.0.0/8, `[::1]`)
   * stays allowed. Credentials the app sends itself (`transport.headers`,
   * its own interceptors) are its own affair.
   */
  authOverHttp?: boolean | undefined;
}

/**
 * What `connect()` starts from: the agent's URL, a card, or a
 * `resolveAgentCard` result. A card may also be given as its JSON, as
 * `JSON.parse` gives it (1.0 or 0.3), which is read as a fetched card is:
 * typed `AgentCardJson`, or any object (a 0.3 card, JSON your code has
 * checked), the same types `parseCard` takes; what is not a card fails
 * `connect()` with InvalidAgentCardError or InvalidParamsError.
 * @category Connect and call
 */
export type ConnectTarget = string | URL | AgentCard | ResolvedAgentCard | AgentCardJson | Readonly<Record<string, unknown>>;

/**
 * Makes a `connect()` that builds transports with the given factories
 * instead of an entry's (see `registeredTransports`), for a runtime or a
 * tool that needs transports of its own.
 * @example
 * ```ts
 * import { createJsonRpcTransport, loggingInterceptor } from "a2a-connect";
 * import { createConnect, registeredTransports } from "a2a-connect/toolkit";
 *
 * // A connect() whose JSON-RPC 1.0 interfaces log every call:
 * const connect = createConnect({
 *   ...registeredTransports(),
 *   "JSONRPC@1.0": (candidate, settings) =>
 *     createJsonRpcTransport({ ...settings, baseUrl: candidate.interface.url, interceptors: [loggingInterceptor(), ...(settings.interceptors ?? [])] }),
 * });
 * const session = await connect("https://agent.example.com");
 * ```
 * @category For tool authors
 */
export function createConnect(defaultFactories: TransportFactories) {
  return async function connect(target: ConnectTarget, options: ConnectOptions = {}): Promise<AgentSession> {
    const factories = options.grpcWeb ? { ...defaultFactories, ...grpcWebFactories(options.grpcWeb) } : defaultFactories;
    const supports = supportIn(factories);
    // A misspelt binding fails before any request, not after the card is fetched.
    bindingList(options.bindings, "bindings");
    bindingList(options.preferredBindings, "preferredBindings");
    // Its own timeout too, which bounds what loads next: discovery checks it, but a card already resolved skips discovery.
    checkDuration(options.timeoutMs, "timeoutMs");
    // 0 means "no limit for calls" here, so the rule discovery's own check would name ("above 0") is not this option's.
    if (typeof options.timeoutMs === "number" && options.timeoutMs < 0) {
      throw new InvalidParamsError(`timeoutMs must be 0 or more (0 or Infinity: no limit for calls), got ${shownValue(options.timeoutMs)}`);
    }
    // Loaded only by apps that retry; a bad policy fails before any request.
    if (options.retry) (await loading(import("../call/retry.js"), "its retry policy", options)).checkRetryPolicy(options.retry, RETRY_KIT);
    // So does a limit or timeout of the transports that could not work.
    if (options.transport) checkTransportNumbers(options.transport, "transport.");

    // Key sets come through the caller's fetch, for every card of the
    // session (a card in hand, the extended card), as for a discovered one.
    const verification = options.fetch === undefined ? options.verification : { fetch: options.fetch, ...options.verification };
    const resolved = await resolveTarget(target, options, verification);
    const card = resolved.card;

    const active = new Set(options.extensions ?? []);
    const missing = (card.capabilities?.extensions ?? []).filter((e) => e.required && !active.has(e.uri)).map((e) => e.uri);
    if (missing.length > 0) {
      throw new ExtensionSupportRequiredError(`the agent requires extensions that are not activated: ${missing.join(", ")}`);
    }

    // connect()'s timeoutMs is the calls' default; transport.timeoutMs, given, is the more specific.
    let settings: TransportSettings = { ...options.transport, timeoutMs: options.transport?.timeoutMs ?? options.timeoutMs };
    let usable = supports;
    let refuses: SelectionRules["refuses"];
    if (options.auth) {
      // Loaded only by apps that authenticate this way.
      const { planAuth } = await loading(import("../auth/plan.js"), "its auth", options);
      const plan = planAuth(card, options.auth, {
        fetch: options.fetch,
        authOverHttp: options.authOverHttp,
        localUrls: options.localUrls,
        // "" for a card in hand: it came from no origin.
        cardUrl: resolved.url || undefined,
        cardVerified: resolved.verification?.verified === true,
      });
      // Innermost, so that the app's interceptors see one call, retry included.
      settings = { ...settings, interceptors: [...(settings.interceptors ?? []), ...plan.interceptors] };
      const grpcUnsupported = plan.grpcUnsupported;
      if (grpcUnsupported) usable = (binding, version) => (binding === "GRPC" ? grpcUnsupported : supports(binding, version));
      const tls = settings.tls;
      // Judged by the URL the transport will call (a gRPC `host:port` by its host and `tls`): the
      // plan reads it, so that the start of an app that never authenticates has no gRPC code.
      refuses = (binding, url) => plan.refusedAtInterface(binding, url, tls);
    }

    const { candidates, passedOver } = rankInterfaces(card.supportedInterfaces, {
      bindings: options.bindings,
      preferredBindings: options.preferredBindings,
      preferredVersions: options.preferredVersions,
      protocolVersions: options.protocolVersions,
      supports: usable,
      refuses,
    });
    const described = passedOver.map((p) => ({
      url: p.interface.url,
      binding: p.interface.protocolBinding,
      version: p.interface.protocolVersion,
      reason: p.reason,
    }));
    if (candidates.length === 0) {
      // URLs without user info or query: a card given by the caller may carry a key in one. The first
      // few name the problem; a card of thousands would make a message of megabytes (passedOver has them all).
      const shown = described.map((p) => ({ ...p, url: safeInterfaceUrl(p.url) }));
      const listed = shown.slice(0, 10).map((p) => `${p.binding} ${p.version} at ${p.url}: ${p.reason}`);
      if (shown.length > 10) listed.push(`${shown.length - 10} more`);
      const why = listed.join("; ");
      throw new NoCompatibleInterfaceError(`no usable interface in the Agent Card${why ? ` (${why})` : ""}`, { passedOver: shown });
    }

    const transport = new FailoverTransport({
      candidates,
      create: (c) => factories[`${c.binding}@${c.version}`]!(c, settings),
      versionFallback: options.versionFallback ?? "off",
      maxAttempts: Math.max(1, options.maxAttempts ?? 3),
    });
    const client = new A2AClient(transport, { extensions: options.extensions, retry: options.retry, timeoutMs: settings.timeoutMs });
    return new AgentSession(client, resolved, {
      verify: options.verify,
      verification,
      localUrls: options.localUrls,
      selection: { transport, candidates, passedOver: described },
    });
  };
}

/**
 * A module connect() loads on demand, awaited within its signal and its
 * timeout (as discovery is): a chunk whose fetch stalls (a browser's
 * dynamic import has no timeout) must not hold connect() for good.
 */
function loading<T>(code: Promise<T>, what: string, options: ConnectOptions): Promise<T> {
  const limitMs = discoveryTimeoutMs(options);
  return awaitWithin(code, options.signal, limitMs, {
    aborted: () => new AbortedError("connect() was aborted", { cause: options.signal?.reason }),
    timedOut: () => new CallTimeoutError(`connect() could not load ${what} within ${limitMs} ms`, { kind: "deadline" }),
  });
}

/**
 * connect()'s `timeoutMs` as discovery's: the same, except that 0 and
 * Infinity, no limit for the calls, leave discovery its default rather than
 * ending it at once or never.
 */
function discoveryTimeoutMs(options: ConnectOptions): number {
  const ms = options.timeoutMs;
  return ms === undefined || ms === 0 || ms === Infinity ? DEFAULT_DISCOVERY_TIMEOUT_MS : ms;
}

async function resolveTarget(
  target: ConnectTarget,
  connectOptions: ConnectOptions,
  verification: ConnectOptions["verification"],
): Promise<ResolvedAgentCard> {
  const options = { ...connectOptions, timeoutMs: discoveryTimeoutMs(connectOptions) };
  // One way to say where a card came from: the verifier's own spelling is not it (the types refuse it too).
  if ((verification as VerifyOptions | undefined)?.cardUrl !== undefined) {
    throw new InvalidParamsError("verification.cardUrl: where a card came from is connect()'s own option: connect(card, { cardUrl })");
  }
  // Plain JavaScript may pass anything: what is not one of the types is read as a card's JSON.
  const given: unknown = target;
  const known = typeof target === "string" || target instanceof URL || (isRecord(given) && isMessage(given.card, AgentCardSchema));
  if (known && options.cardUrl !== undefined) {
    throw new InvalidParamsError("cardUrl: only for a card given to connect(), not a URL or a resolveAgentCard result");
  }
  if (typeof target === "string" || target instanceof URL) return resolveAgentCard(String(target), options);
  if (known) return target as ResolvedAgentCard;
  if (!isRecord(given) || Array.isArray(given)) {
    throw new InvalidParamsError("connect: the target is not a URL, an Agent Card or its JSON");
  }
  // Named by no part of its text, which may carry a credential.
  const url = options.cardUrl === undefined ? "" : (parsedUrl(String(options.cardUrl))?.href ?? "");
  if (options.cardUrl !== undefined && !/^https?:/.test(url)) throw new InvalidParamsError("cardUrl: not an absolute http(s) URL");
  const { card, shape, json, warnings } = await readCardInHand(given, url, connectOptions);
  // Before the key sets it names are fetched, as for a fetched card; a card from no URL is the caller's own choice.
  checkCardLocalUrls(card, url, options.localUrls);
  // A card in hand is held to the same signature policy as a fetched one, within the same signal and timeout.
  const result = await verifyCardInHand(card, options, url ? { ...verification, cardUrl: url } : verification, json);
  return { card, url, shape, cache: "miss", verification: result, warnings };
}

/**
 * A card given to connect(), read as a fetched card is: its JSON by
 * readCard (either version, required fields checked; the reading of a 0.3
 * card loads within connect()'s signal and timeout), a message as it is;
 * relative interface URLs resolved against `url` (the card's `cardUrl`, or
 * "" for none, which refuses them). A message is copied before they are,
 * as it is the caller's.
 */
async function readCardInHand(given: Record<string, unknown>, url: string, options: ConnectOptions) {
  if (!isMessage(given, AgentCardSchema)) return readCard(given, url, (load) => loading(load, "its reader of A2A 0.3 cards", options));
  // Messages are plain objects: a copy of the card and its interfaces leaves the caller's as they are.
  const card: AgentCard = url ? { ...given, supportedInterfaces: given.supportedInterfaces.map((i) => ({ ...i })) } : given;
  return { card, shape: "1.0" as const, json: undefined, warnings: resolveRelativeInterfaces(card, url, "the Agent Card given") };
}

/**
 * Resolves an agent's card, chooses an interface and returns a session whose
 * client fails over between the card's interfaces. This one builds the
 * browser-safe bindings, JSON-RPC and HTTP+JSON on `fetch`, whatever else the
 * process imports; `connect` of `a2a-connect/node` adds gRPC over HTTP/2 and
 * calls JSON-RPC and HTTP+JSON over a keep-alive `node:http` client.
 * @example
 * ```ts
 * import { connect, userMessage, textOf } from "a2a-connect";
 *
 * const session = await connect("https://agent.example.com");
 * console.log(session.card.name, session.interface?.binding, session.interface?.interface.url);
 *
 * const res = await session.client.sendMessage({ message: userMessage("hello") });
 * console.log(textOf(res));
 * ```
 * @category Connect and call
 */
export const connect = createConnect(transportFactories);

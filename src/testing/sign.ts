/**
 * The test agent's signed card (specification section 8.4): a P-256 key
 * pair made when the agent is made (Web Crypto), and the card served at
 * each origin, and the extended card GetExtendedAgentCard answers there,
 * signed with it as the client verifies one: a detached JWS
 * over the card's RFC 8785 form without `signatures`, protected header
 * `{alg: "ES256", typ: "JOSE", kid, jku}`, the `jku` naming the agent's own
 * key set, served beside the card. A test trusts the key by pinning the
 * public key set (`agent.cardKeys()`) or by letting the client fetch the
 * `jku` (a card on loopback may name an http key set on loopback).
 */
import { toJson, type JsonObject } from "@bufbuild/protobuf";
import type { JWK } from "jose";
import { AgentCardSchema, type AgentCard, type AgentCardJson } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { messageFromJson } from "../protocol/proto-json.js";
import { signAgentCard } from "../trust/sign.js";

/** How a test agent signs its card (`signCard`). @category Testing */
export interface TestCardSigning {
  /** The key id, in the signature's header and in the key set. Default `"test-agent-key"`. */
  kid?: string | undefined;
  /**
   * Whether the signature's protected header names the agent's key set by
   * `jku` (`/.well-known/jwks.json` on the origin the card is served
   * from), which the client fetches when no keys are pinned. Default true.
   */
  jku?: boolean | undefined;
  /**
   * Serves the cards (the public one, and the extended one) changed after
   * they were signed (their `description`), so that their signatures no
   * longer verify: how a client treats a tampered card. Default false.
   */
  tampered?: boolean | undefined;
}

/** The public key set that verifies a test agent's signed card, a JWKS: what `verification: { keys }` takes. @category Testing */
export interface CardKeySet {
  /** The agent's one public key, with its `kid` and `alg`. */
  keys: JWK[];
}

/** Where the agent serves the key set that verifies its card. */
export const KEYS_PATH = "/.well-known/jwks.json";

const DEFAULT_KID = "test-agent-key";
const ALG = "ES256";

interface KeyPair {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

/** Signs the cards an agent serves, the public and the extended one, once per origin, with a key pair made at once. */
export class CardSigner {
  readonly #kid: string;
  readonly #jku: boolean;
  readonly #tampered: boolean;
  readonly #keys: Promise<KeyPair>;
  /** Signed cards by which and origin: the card served at an origin names its interfaces (and key set) there. */
  readonly #signed = new Map<string, Promise<AgentCard>>();

  constructor(options: TestCardSigning) {
    this.#kid = options.kid ?? DEFAULT_KID;
    this.#jku = options.jku ?? true;
    this.#tampered = options.tampered ?? false;
    this.#keys = generateKeyPair(this.#kid);
    // Reported by whoever awaits it first: the card's request or `cardKeys()`.
    this.#keys.catch(() => {});
  }

  /** The public key set that verifies the served cards: `verification: { keys }` pins it. */
  async keySet(): Promise<CardKeySet> {
    const { publicJwk } = await this.#keys;
    return { keys: [{ ...publicJwk }] };
  }

  /** `card`, the public card as served at `origin`, with its signature. */
  async served(origin: string, card: AgentCardJson): Promise<AgentCardJson> {
    const signed = await this.#signedOnce(`card ${origin}`, origin, () => messageFromJson(AgentCardSchema, card as JsonObject));
    return toJson(AgentCardSchema, signed) as AgentCardJson;
  }

  /** `card`, the extended card as served at `origin`, with its signature. */
  extendedAt(origin: string, card: AgentCard): Promise<AgentCard> {
    return this.#signedOnce(`extended ${origin}`, origin, () => card);
  }

  #signedOnce(key: string, origin: string, card: () => AgentCard): Promise<AgentCard> {
    let signed = this.#signed.get(key);
    if (!signed) {
      signed = this.#sign(origin, card());
      this.#signed.set(key, signed);
    }
    return signed;
  }

  async #sign(origin: string, card: AgentCard): Promise<AgentCard> {
    const { privateKey } = await this.#keys;
    const options = { kid: this.#kid, alg: ALG, ...(this.#jku ? { jku: origin + KEYS_PATH } : {}) };
    const signed = await signAgentCard(card, privateKey, options);
    if (this.#tampered) signed.description = `${signed.description} (changed after signing)`;
    return signed;
  }
}

async function generateKeyPair(kid: string): Promise<KeyPair> {
  const { privateKey, publicKey } = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
  const { kty, crv, x, y } = (await crypto.subtle.exportKey("jwk", publicKey)) as JWK;
  return { privateKey, publicJwk: { kty, crv, x, y, kid, alg: ALG, use: "sig" } };
}

/**
 * An Agent Card read from a local file, held to what a fetched card is:
 * the same parsing and validation (`parseCard`: errors name the file and
 * the field) and the same signature policy, verified over the document as
 * written. A file has no origin of its own, so a signature's `jku` is
 * checked against the origin of the card's first interface: the agent the
 * calls go to is the one whose key set must have signed it.
 */
import { AgentCardNotFoundError, InvalidAgentCardError } from "../errors/family.js";
import { verifyCardInHand, type ResolvedAgentCard } from "../discovery/resolve.js";
import { parseCard } from "../discovery/parse-card.js";
import type { KeyStore, VerifyPolicy } from "../trust/options.js";
import { readLocalFile } from "./local-file.js";

/** Largest card file read, as for a fetched card (1 MiB). */
const MAX_CARD_BYTES = 1024 * 1024;

/** How a card file is verified: the policy, and the keys, as for a fetched card. */
export interface CardFileOptions {
  /** The signature policy (the CLI's: "required" with `card --verify`, else "if-present"). */
  verify: VerifyPolicy;
  /** Pinned keys (`--jwks`); without them, the signature's `jku` (http only on a loopback agent). */
  keys?: KeyStore | undefined;
  /** Ends the file's read and the key set fetch. */
  signal: AbortSignal;
  /** Bounds the key set fetch. */
  timeoutMs?: number | undefined;
  /** The `fetch` for the key set (`-v` logs it). */
  fetch?: typeof fetch | undefined;
}

/** Reads, validates and (under the policy) verifies the card in the file at `path`. */
export async function readCardFile(path: string, options: CardFileOptions): Promise<ResolvedAgentCard> {
  let bytes: Buffer;
  try {
    bytes = await readLocalFile(path, options.signal, MAX_CARD_BYTES + 1);
  } catch (e) {
    if (options.signal.aborted) throw e;
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new AgentCardNotFoundError(`no Agent Card in the file ${path} (${why})`, { tried: [path] });
  }
  if (bytes.byteLength > MAX_CARD_BYTES) {
    throw new InvalidAgentCardError(`the Agent Card at ${path} is larger than ${MAX_CARD_BYTES} bytes`, { problem: "too-large" });
  }
  // An editor's byte order mark is not part of the JSON (fetch's text() drops it too).
  const parsed = parseCard(bytes.toString("utf8").replace(/^\uFEFF/, ""), path);
  const cardUrl = parsed.card.supportedInterfaces.map((i) => i.url).find((u) => /^https?:\/\//i.test(u));
  // Verified as connect() verifies a card in hand, with where it came from as its cardUrl.
  const verification = await verifyCardInHand(
    parsed.card,
    { verify: options.verify, signal: options.signal, timeoutMs: options.timeoutMs },
    { keys: options.keys, fetch: options.fetch, timeoutMs: options.timeoutMs, cardUrl },
    parsed.json,
  );
  return { card: parsed.card, url: path, shape: parsed.shape, cache: "miss", verification, warnings: parsed.warnings };
}

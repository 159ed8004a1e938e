/**
 * B3: Agent Card resolution and signature checks, in one process (the
 * canned server answers the card requests from a process of its own).
 * Prints one JSON line per measure: operations per second, medians of the
 * rounds, with min and max.
 */
import { exportJWK, generateKeyPair } from "jose";
import { lib } from "./library.js";

const { MemoryCardStore, resolveAgentCard, signAgentCard, verifyAgentCard } = lib;

const port = Number(process.argv[2]);
const rounds = Number(process.argv[3] ?? 5);
const base = `http://127.0.0.1:${port}`;

/** Runs `op` back to back for `ms`, `rounds` times after a warm-up; ops/s per round. */
async function rate(op: () => Promise<unknown>, ms: number): Promise<number[]> {
  const out: number[] = [];
  for (let r = -1; r < rounds; r++) {
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < ms) {
      await op();
      n++;
    }
    if (r >= 0) out.push((n * 1000) / (performance.now() - t0));
  }
  return out;
}

const results: Record<string, number[]> = {};

results["resolve, cold (no cache)"] = await rate(() => resolveAgentCard(`${base}/card.json`, { cache: false, verify: "off" }), 300);

const store = new MemoryCardStore();
await resolveAgentCard(`${base}/card.json`, { cache: store, verify: "off" });
results["resolve, cached within max-age"] = await rate(async () => {
  const r = await resolveAgentCard(`${base}/card.json`, { cache: store, verify: "off" });
  if (r.cache !== "hit") throw new Error(`expected a cache hit, got ${r.cache}`);
}, 300);

const stale = new MemoryCardStore();
await resolveAgentCard(`${base}/revalidate/card.json`, { cache: stale, verify: "off" });
results["resolve, revalidated (304)"] = await rate(async () => {
  const r = await resolveAgentCard(`${base}/revalidate/card.json`, { cache: stale, verify: "off" });
  if (r.cache !== "revalidated") throw new Error(`expected a revalidation, got ${r.cache}`);
}, 300);

const { card } = await resolveAgentCard(`${base}/card.json`, { cache: false, verify: "off" });
const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
const jwk = { ...(await exportJWK(publicKey)), kid: "k1" };
const signed = await signAgentCard(card, privateKey, { kid: "k1" });
results["ES256 card verification"] = await rate(async () => {
  const r = await verifyAgentCard(signed, { keys: { keys: [jwk] }, jku: false });
  if (!r.verified) throw new Error("the signature did not verify");
}, 300);

process.send?.(results);
if (!process.send) console.log(JSON.stringify(results));
process.exit(0);

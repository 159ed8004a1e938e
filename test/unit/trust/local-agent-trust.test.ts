/**
 * The local agent's signed card, by whichever loopback name it is reached:
 * the card names its key set on the origin it was fetched from, so that a
 * client verifies it at `localhost` as at `127.0.0.1`; and a card in hand
 * says where it came from with connect()'s `cardUrl`.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../../demo/agent.js";
import {
  AgentCardVerificationError,
  InvalidParamsError,
  MemoryCardStore,
  connect,
  resolveAgentCard,
  textOf,
  userMessage,
  type AgentCardJson,
  type ConnectOptions,
} from "../../../src/index.js";
import { JwksCache } from "../../../src/trust.js";
import { runCli } from "../../support/run-cli.js";

let agent: LocalAgent;
let port: string;
beforeAll(async () => {
  agent = await startLocalAgent();
  port = new URL(agent.origin).port;
});
afterAll(() => agent.close());

/** As the demo connects (demo/run.ts): the card must verify, its key set may be on http. */
const demoTrust = (): ConnectOptions => ({
  cache: new MemoryCardStore(),
  verify: "required",
  verification: { jku: { allowHttp: true, cache: new JwksCache() } },
});

/** The card's JSON as served for a request with this Host header. */
function cardServedTo(host: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/.well-known/agent-card.json", headers: { Host: host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve(JSON.parse(body) as Record<string, unknown>));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The `jku` of the card's first signature. */
function jkuOf(card: Record<string, unknown>): unknown {
  const [signature] = card.signatures as { protected: string }[];
  return (JSON.parse(Buffer.from(signature!.protected, "base64url").toString("utf8")) as { jku?: unknown }).jku;
}

describe("the local agent's card names its key set on the origin it was fetched from", () => {
  it.each(["localhost", "127.0.0.1"])("connect() to http://%s:PORT verifies the card, and calls go through", async (host) => {
    const origin = `http://${host}:${port}`;
    for (const options of [demoTrust(), { cache: new MemoryCardStore(), verify: "required" as const }]) {
      const session = await connect(origin, options);
      expect(session.verification).toMatchObject({ verified: true, keySource: "jku", jku: `${origin}/.well-known/jwks.json` });
      expect(textOf(await session.client.sendMessage({ message: userMessage("echo hi") }))).toBe("hi");
    }
  });

  it("the CLI verifies the card at localhost:PORT", async () => {
    const r = await runCli(["card", `localhost:${port}`, "--verify"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(`verified: kid ${agent.signingKid}, ES256, key from key set http://localhost:${port}/.well-known/jwks.json`);
    expect(r.code).toBe(0);
  });

  it("the extended card, served on the interfaces' 127.0.0.1, verifies in a session that fetched the card as localhost", async () => {
    const session = await connect(`http://localhost:${port}`, demoTrust());
    const extended = await session.extendedCard();
    expect(extended.skills.map((s) => s.id)).toContain("secret-skill");
    expect(session.extendedCardVerification).toMatchObject({ verified: true, jku: agent.jwksUrl });
  });

  it("each loopback name of its port gets its own signed card, signed once; any other Host the card of the address it listens on", async () => {
    const atName = await cardServedTo(`localhost:${port}`);
    expect(jkuOf(atName)).toBe(`http://localhost:${port}/.well-known/jwks.json`);
    expect(await cardServedTo(`localhost:${port}`)).toEqual(atName);
    expect(jkuOf(await cardServedTo(`[::1]:${port}`))).toBe(`http://[::1]:${port}/.well-known/jwks.json`);
    for (const host of [`127.0.0.1:${port}`, `agent.example:${port}`, "localhost:1", "127.0.0.2", "localhost"]) {
      expect(jkuOf(await cardServedTo(host)), host).toBe(agent.jwksUrl);
    }
  });
});

describe("a card in hand says where it came from with cardUrl", () => {
  const cardText = async (): Promise<string> => (await fetch(agent.cardUrl)).text();

  it("connect(JSON.parse(text), { cardUrl }) verifies the signed card at the key set of that origin, and calls go through", async () => {
    const fetched: string[] = [];
    const counting: typeof fetch = (input, init) => {
      fetched.push(String(input));
      return fetch(input, init);
    };
    const session = await connect(JSON.parse(await cardText()), {
      cardUrl: agent.cardUrl,
      verify: "required",
      fetch: counting,
      verification: { jku: { cache: new JwksCache() } },
    });
    expect(session.verification).toMatchObject({ verified: true, keySource: "jku", jku: agent.jwksUrl });
    expect(session.cardUrl).toBe(agent.cardUrl);
    expect(fetched).toEqual([agent.jwksUrl]);
    expect(textOf(await session.client.sendMessage({ message: userMessage("echo in hand") }))).toBe("in hand");
  });

  it("without cardUrl, the refusal names cardUrl", async () => {
    const e = await connect(JSON.parse(await cardText()), { verify: "required" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AgentCardVerificationError);
    const [failure] = (e as AgentCardVerificationError).result.failures;
    expect(failure!.reason).toContain("pass cardUrl, the URL it was fetched from (connect(card, { cardUrl })");
  });

  it("verification.cardUrl, which the types refuse, is refused at run time too, naming cardUrl", async () => {
    const e = await connect(JSON.parse(await cardText()), {
      verify: "required",
      verification: { cardUrl: agent.cardUrl } as ConnectOptions["verification"],
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as Error).message).toBe("verification.cardUrl: where a card came from is connect()'s own option: connect(card, { cardUrl })");
  });

  it("cardUrl with a URL target, or with a resolveAgentCard result, is refused: the card's URL is known", async () => {
    const resolved = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore() });
    for (const target of [agent.origin, new URL(agent.origin), resolved]) {
      const e = await connect(target, { cardUrl: agent.cardUrl }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toMatch(/^cardUrl: only for a card given to connect\(\)/);
    }
  });

  it("a cardUrl that is not an absolute http(s) URL is refused without quoting it", async () => {
    for (const cardUrl of ["not a url", "file:///tmp/card.json?token=secret"]) {
      const e = await connect(JSON.parse(await cardText()), { cardUrl }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toBe("cardUrl: not an absolute http(s) URL");
    }
  });

  it("the types take a card's JSON as AgentCardJson or as an object, as parseCard does, and refuse what is no object", () => {
    const typed: AgentCardJson = { name: "agent" };
    const checked: Readonly<Record<string, unknown>> = { name: "agent" };
    const attempts = [() => connect(typed, { cardUrl: "https://agent.example" }), () => connect(checked)];
    // @ts-expect-error a number is neither a URL nor a card
    const wrong = () => connect(41241);
    expect([...attempts, wrong].every((f) => typeof f === "function")).toBe(true);
  });

  it("the types take cardUrl beside verification, and neither verification.cardUrl nor a misspelling", () => {
    // A card as JSON.parse gives it, as users hold one: only the options can be wrong.
    const inHand = (options: ConnectOptions) => () => connect(JSON.parse("{}"), options);
    const accepted = inHand({ cardUrl: "https://agent.example/.well-known/agent-card.json" });
    // @ts-expect-error where a card came from is connect()'s own option, not one of verification's
    const nested = inHand({ verification: { cardUrl: "https://agent.example" } });
    // @ts-expect-error misspelt
    const misspelt = inHand({ cardURL: "https://agent.example" });
    expect([accepted, nested, misspelt].every((f) => typeof f === "function")).toBe(true);
  });
});

/** The auth a card asks for, as interceptors; the planning (auth/plan.ts) is loaded on first use. */
import type { Interceptor } from "@connectrpc/connect";
import type { AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { onDemand } from "../base/on-demand.js";
import type { AuthCredentials, AuthPlanOptions } from "./plan.js";

const loadAuthPlan = onDemand(() => import("./plan.js"));

/**
 * The interceptors that satisfy a card's requirements with `auth`, as
 * `connect()` chooses them; `{ requirements: skill.securityRequirements }`
 * for a skill's own. Fails with AuthenticationError when they cannot be met.
 * @example
 * ```ts
 * import { A2AClient, authInterceptors, createJsonRpcTransport, resolveAgentCard } from "a2a-connect";
 *
 * const { card } = await resolveAgentCard("https://agent.example.com");
 * const skill = card.skills.find((s) => s.id === "billing");
 * const interceptors = await authInterceptors(card, { apiKey: { value: "..." } }, { requirements: skill?.securityRequirements });
 * const client = new A2AClient(createJsonRpcTransport({ baseUrl: "https://agent.example.com/a2a/jsonrpc", interceptors }));
 * ```
 * @category Auth
 */
export async function authInterceptors(card: AgentCard, auth: AuthCredentials, options: AuthPlanOptions = {}): Promise<Interceptor[]> {
  return (await loadAuthPlan()).planAuth(card, auth, options).interceptors;
}

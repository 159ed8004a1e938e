/** The auth a card asks for, as interceptors; the planning (auth/plan.ts) is loaded on first use. */
import type { Interceptor } from "@connectrpc/connect";
import type { AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { onDemand } from "../util.js";
import type { AuthCredentials, AuthPlanOptions } from "./plan.js";

const loadAuthPlan = onDemand(() => import("./plan.js"));

/**
 * The interceptors that satisfy a card's requirements with `auth`, as
 * `connect()` chooses them; `{ requirements: skill.securityRequirements }`
 * for a skill's own. Fails with AuthenticationError when they cannot be met.
 */
export async function authInterceptors(card: AgentCard, auth: AuthCredentials, options: AuthPlanOptions = {}): Promise<Interceptor[]> {
  return (await loadAuthPlan()).planAuth(card, auth, options).interceptors;
}

import { Hono } from "hono";
import { scopeAllows } from "../auth/principal";
import type { AppEnv } from "../env";
import { answerNewSubscriber } from "../http/user-fields";
import { jwtRouteRefusals, requireCredentials } from "./auth";

// `POST users` (captures 01-08; plugin includes/users/create-users.php), envelope B: the same
// checks, texts and answers as /wp-json/wallet/v1/users, which the contract took from the plugin
// (a missing username or password also "too short", as the plugin said: capture 04), behind the plugin's JWT-route refusals. This service's API keys are credentials here too (the
// plugin read any `Key` header as a bad JWT, capture 08).
export const usersCreate = new Hono<AppEnv>().post("/", async (c) => {
  const principal = await requireCredentials(c, jwtRouteRefusals);
  if (principal.role !== "administrator" || !scopeAllows(principal.scope, "write")) {
    throw jwtRouteRefusals.forbidden();
  }
  return answerNewSubscriber(c, { plugin: true });
});

import { defineRoute } from "../http/route";
import { answerNewSubscriber, newSubscriberFields } from "../http/user-fields";
import { jwtRouteRefusals } from "./auth";

// `POST users` (captures 01-08; plugin includes/users/create-users.php), envelope B: the same
// checks, texts and answers as /wp-json/wallet/v1/users, which the contract took from the plugin
// (a missing username or password also "too short", as the plugin said: capture 04), behind the plugin's JWT-route refusals. This service's API keys are credentials here too (the
// plugin read any `Key` header as a bad JWT, capture 08).
export const usersCreate = defineRoute(
  {
    path: "/users",
    method: "POST",
    summary: "Create a subscriber",
    auth: "admin",
    access: "write",
    refusals: jwtRouteRefusals,
    params: newSubscriberFields({ plugin: true }),
    envelope: "B",
  },
  (c, fields) => answerNewSubscriber(c, fields, { plugin: true }),
);

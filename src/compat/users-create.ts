import type { Params } from "../http/params";
import { defineRoute } from "../http/route";
import { answerNewSubscriber, newSubscriberFields } from "../http/user-fields";
import { jwtRouteRefusals } from "./auth";
import { cSpaceAsSpace, phpText, sanitizeTextField, sanitizeUser } from "./php";

const FIELDS = ["username", "user_email", "user_password", "first_name", "last_name"] as const;

/**
 * The fields as the plugin handed them to its checks and to wp_insert_user: a JSON boolean is PHP's
 * text of it (`true` is "1", `false` empty), and `username` the login WordPress stored for the text
 * as sent (php.ts sanitizeUser: `José` is `Jose`, `kate<smith` is `kate`). The plugin checked
 * sanitize_text_field's text for white space, so a username with any (a tab, a form feed) keeps a
 * space and is refused as that. Of a username WordPress could store nothing of (`日本`), the checked
 * text is kept, and refused as wallet/v1 refuses it.
 */
function asThePluginRead(params: Params): Params {
  const read: Params = { ...params };
  for (const field of FIELDS)
    if (typeof read[field] === "boolean") read[field] = phpText(read[field]);
  const { username } = read;
  if (typeof username === "string" || typeof username === "number") {
    const checked = sanitizeTextField(username);
    const spaced = cSpaceAsSpace(checked);
    const asSent = typeof username === "string" && !spaced.includes(" ");
    read.username = sanitizeUser(asSent ? username : spaced) || checked;
  }
  return read;
}

const fields = newSubscriberFields({ plugin: true });

// `POST users` (captures 01-08; plugin includes/users/create-users.php), envelope B: the same
// checks, texts and answers as /wp-json/wallet/v1/users, which the contract took from the plugin
// (a missing username or password also "too short", as the plugin said: capture
// 04-users-create-empty-body), on the fields as the plugin read them, behind the plugin's JWT-route
// refusals. This service's API keys are credentials here too (the plugin read any `Key` header as
// a bad JWT, capture 08-users-create-key-auth).
export const usersCreate = defineRoute(
  {
    path: "/users",
    method: "POST",
    summary: "Create a subscriber",
    auth: "admin",
    access: "write",
    refusals: jwtRouteRefusals,
    params: { schema: fields.schema, read: (c, params) => fields.read(c, asThePluginRead(params)) },
    envelope: "B",
  },
  (c, fields) => answerNewSubscriber(c, fields, { plugin: true }),
);

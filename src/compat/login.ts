import * as v from "valibot";
import { ok } from "../http/envelope";
import { validationError } from "../http/errors";
import { defineRoute, type Input } from "../http/route";
import { LoginParams, type SignInFields, signInFields, signInWith } from "../http/user-fields";
import { phpTrim } from "../text";
import { seconds } from "../wallet/rules";
import { pluginLogin } from "./identity";
import { phpEmpty, phpText } from "./php";
import { PLUGIN_EXPIRATION, pluginExpiration } from "./schemas";

// `POST users/login` in the plugin's dialect (plugin includes/users/login.php), envelope B: the
// same sign-in as /wp-json/wallet/v1/users/login (throttled, constant-cost refusals, imported hashes
// upgraded), answered as the plugin answered. Any Authorization header is ignored, as the plugin
// ignored it (clients send `Bearer undefined` before they have a token).

const ExpirationParams = v.object({ token_expiration: PLUGIN_EXPIRATION });

/**
 * The sign-in's fields, after the plugin's one check of its own: `token_expiration`. A JSON boolean
 * login or password is PHP's text of it (`true` is "1", `false` empty), as the plugin read it. The
 * password is checked trimmed, as wp_authenticate trims it, after its "is required" check on the
 * text as sent (blanks are then a wrong password, as there); a login without `@` also without its
 * accents (pluginLogin), as wp_authenticate's sanitize_user read it.
 */
const loginInput: Input<SignInFields> = {
  schema: v.object({ ...LoginParams.entries, ...ExpirationParams.entries }),
  read: async (c, params) => {
    const expiration = v.safeParse(ExpirationParams, params);
    if (!expiration.success) throw validationError({ error: expiration.issues[0].message });
    const read = { ...params };
    for (const field of ["user_email", "username", "user_password"])
      if (typeof read[field] === "boolean") read[field] = phpText(read[field]);
    const persistent = pluginExpiration(params.token_expiration) === "persistent";
    read.token_expiration = persistent ? "persistent" : undefined;
    const fields = await signInFields.read(c, read);
    // wp_authenticate read the login through sanitize_user, which removes accents: `José` names
    // the `Jose` POST users stored when nobody is `José`, and is throttled as that one login.
    // wp_authenticate_username_password refused what PHP's empty() calls empty: "" and "0".
    const password = phpTrim(fields.password);
    return {
      ...fields,
      ...pluginLogin(fields.login),
      password: phpEmpty(password) ? "" : password,
    };
  },
};

export const compatLogin = defineRoute(
  {
    path: "/users/login",
    method: "POST",
    summary: "Sign in and get an access token",
    auth: "none",
    params: loginInput,
    envelope: "B",
  },
  async (c, fields) => {
    const { user, accessToken, signedInAtMs } = await signInWith(c, fields);
    return ok(c, 200, "Login successful", {
      access_token: accessToken,
      // The plugin returned WP_User's ID as the database row held it (text) and time() (seconds).
      user_id: String(user.id),
      user_email: user.email,
      username: user.username,
      time_of_login: seconds(signedInAtMs),
    });
  },
);

import { Hono } from "hono";
import type { AppEnv } from "../env";
import { ok } from "../http/envelope";
import { ApiError } from "../http/errors";
import { readParams } from "../http/params";
import { signInFrom } from "../http/user-fields";

// `POST users/login` in the plugin's dialect (plugin includes/users/login.php), envelope B: the
// same sign-in as /wp-json/wallet/v1/users/login (throttled, constant-cost refusals, imported hashes
// upgraded), answered as the plugin answered. Any Authorization header is ignored, as the plugin
// ignored it (clients send `Bearer undefined` before they have a token).
export const compatLogin = new Hono<AppEnv>().post("/", async (c) => {
  const params = await readParams(c);
  const expiration = params.token_expiration;
  // The plugin knew only a missing token_expiration and "persistent" (its typo kept: clients match it).
  if (
    expiration !== undefined &&
    expiration !== null &&
    expiration !== "" &&
    expiration !== "persistent"
  ) {
    throw new ApiError(400, "Validation error", { error: "unkown token_expiration" });
  }
  const { user, accessToken, nowMs } = await signInFrom(c, params);
  return ok(c, 200, "Login successful", {
    access_token: accessToken,
    // The plugin returned WP_User's ID as the database row held it (text) and time() (seconds).
    user_id: String(user.id),
    user_email: user.email,
    username: user.username,
    time_of_login: Math.floor(nowMs / 1000),
  });
});

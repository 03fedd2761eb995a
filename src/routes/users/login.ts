import { Hono } from "hono";
import { checkLoginPassword } from "../../auth/password";
import { issueToken, PERSISTENT_TOKEN_LIFETIME_S, TOKEN_LIFETIME_S } from "../../auth/tokens";
import { createDb } from "../../db/client";
import { findLoginUser, replacePasswordHash } from "../../db/users";
import type { AppEnv } from "../../env";
import { jwtSecret } from "../../http/auth";
import { ok } from "../../http/envelope";
import { ApiError } from "../../http/errors";
import { readParams } from "../../http/params";
import { mysqlDate } from "../../ledger/post-format";
import { collectUserErrors, LoginParams } from "./schemas";

export const login = new Hono<AppEnv>().post("/", async (c) => {
  const params = await readParams(c);
  // `user_email` may hold an e-mail or a username; `username` is accepted as its alias.
  const input: Record<string, unknown> = {
    ...params,
    user_email: params.user_email ?? params.username,
  };
  const errors = collectUserErrors(LoginParams, input);
  if (errors.length > 0) throw new ApiError(400, "Validation error", errors);

  const db = createDb(c.env.DB);
  const user = await findLoginUser(db, String(input.user_email));
  // The check runs the full hash even for an unknown user: no user enumeration by timing.
  const check = await checkLoginPassword(String(input.user_password), user?.passwordHash);
  if (!user || !check.valid) throw new ApiError(400, "Validation error", ["Invalid Credential"]);
  // A hash imported from WordPress is replaced by this service's own on its first good sign-in.
  if (check.upgradedHash)
    await replacePasswordHash(db, user.id, user.passwordHash, check.upgradedHash);

  const nowMs = c.get("nowMs")();
  const lifetime =
    params.token_expiration === "persistent" ? PERSISTENT_TOKEN_LIFETIME_S : TOKEN_LIFETIME_S;
  const principal = { userId: user.id, username: user.username, role: user.role };
  return ok(c, 200, "Login successful", {
    access_token: await issueToken(principal, jwtSecret(c), c.env.JWT_ISSUER, lifetime, nowMs),
    user_id: user.id,
    user_email: user.email,
    username: user.username,
    time_of_login: mysqlDate(Math.floor(nowMs / 1000), c.env.SITE_TIMEZONE),
  });
});

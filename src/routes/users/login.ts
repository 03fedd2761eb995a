import type { Context } from "hono";
import { REFUSAL_FLOOR_MS } from "../../auth/pace";
import { checkLoginPassword } from "../../auth/password";
import { openSession } from "../../auth/sessions";
import { API_AUDIENCE, PERSISTENT_TOKEN_LIFETIME_S, TOKEN_LIFETIME_S } from "../../auth/tokens";
import { findLoginUser, replacePasswordHash } from "../../db/users";
import type { AppEnv } from "../../env";
import { tokenKeys } from "../../http/auth";
import { ok } from "../../http/envelope";
import { tooManySignIns, validationError } from "../../http/errors";
import { inProcessCall } from "../../http/in-process";
import { type Params, readParams } from "../../http/params";
import { mysqlDate } from "../../ledger/post-format";
import { SignInAttempt } from "../../throttle/sign-in";
import { LoginAnswer } from "../answers";
import { defineRoute } from "../route";
import { collectUserErrors, LoginParams } from "./schemas";

/**
 * A sign-in, whichever dialect answers it: validation, the throttle (issue 11), the password check
 * at constant cost, the upgrade of an imported hash, and a new session with its access token (an
 * API token; a console token only for the console's own in-process call). Refusals are thrown in
 * envelope B; the caller shapes the success.
 */
export async function signIn(c: Context<AppEnv>, params: Params) {
  // `user_email` may hold an e-mail or a username; `username` is accepted as its alias.
  const input: Record<string, unknown> = {
    ...params,
    user_email: params.user_email ?? params.username,
  };
  const errors = collectUserErrors(LoginParams, input);
  if (errors.length > 0) throw validationError(errors);

  const db = c.var.db;
  const nowMs = c.get("nowMs")();
  const login = String(input.user_email);
  // Counted against the client address, the (account, address) pair and, from an address the
  // account never signed in from, its ceiling, before the password is checked (docs/security.md).
  const attempt = new SignInAttempt(c.env.LOGIN_THROTTLE, c.req.header("cf-connecting-ip"), nowMs);
  const { user, retryAfterS } = await attempt.admit(login, findLoginUser(db, login));
  if (retryAfterS !== undefined) throw tooManySignIns(retryAfterS);

  const checkStartedMs = Date.now(); // after the last I/O before the check: see auth/pace.ts
  // The check runs the full hash even for an unknown user; every refusal then waits out one floor.
  const check = await checkLoginPassword(String(input.user_password), user?.passwordHash);
  if (!user || !check.valid) {
    await c.get("pace")(REFUSAL_FLOOR_MS, checkStartedMs);
    throw validationError(["Invalid Credential"]);
  }
  const audience = inProcessCall(c.env)?.audience ?? API_AUDIENCE;
  const lifetimeS =
    params.token_expiration === "persistent" && audience === API_AUDIENCE
      ? PERSISTENT_TOKEN_LIFETIME_S
      : TOKEN_LIFETIME_S;
  const principal = { userId: user.id, username: user.username, role: user.role };
  // One batch: the session, and the hash an imported user's first good sign-in replaces.
  const [{ token: accessToken }] = await Promise.all([
    openSession(db, principal, audience, {
      lifetimeS,
      nowMs,
      keys: tokenKeys(c),
      also: check.upgradedHash
        ? [replacePasswordHash(db, user.id, user.passwordHash, check.upgradedHash)]
        : [],
    }),
    attempt.succeeded(),
  ]);
  return { user, accessToken, nowMs };
}

export const login = defineRoute(
  {
    path: "/users/login",
    method: "POST",
    summary: "Sign in and get an access token",
    auth: "none",
    params: LoginParams,
    envelope: "B",
    errors: ["validation_error", "too_many_sign_ins"],
    success: 200,
    data: LoginAnswer,
  },
  async (c) => {
    const { user, accessToken, nowMs } = await signIn(c, await readParams(c));
    return ok(c, 200, "Login successful", {
      access_token: accessToken,
      user_id: user.id,
      user_email: user.email,
      username: user.username,
      time_of_login: mysqlDate(Math.floor(nowMs / 1000), c.env.SITE_TIMEZONE),
    });
  },
);

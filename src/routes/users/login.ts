import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { signInFields, signInWith } from "../../http/user-fields";
import { siteTimeZone } from "../../settings";
import { mysqlDate, seconds } from "../../wallet/rules";
import { LoginAnswer } from "../answers";

export const login = defineRoute(
  {
    path: "/users/login",
    method: "POST",
    operationId: "login",
    summary: "Sign in and get an access token",
    auth: "none",
    params: signInFields,
    envelope: "B",
    errors: ["validation_error", "too_many_sign_ins", "object_unavailable"],
    data: LoginAnswer,
  },
  async (c, input) => {
    const { user, accessToken, signedInAtMs } = await signInWith(c, input);
    return ok(c, 200, "Login successful", {
      access_token: accessToken,
      user_id: user.id,
      user_email: user.email,
      username: user.username,
      time_of_login: mysqlDate(seconds(signedInAtMs), siteTimeZone(c.env)),
    });
  },
);

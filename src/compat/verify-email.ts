import { Hono } from "hono";
import type { AppEnv } from "../env";
import { send } from "../http/envelope";
import { readParams } from "../http/params";
import { sanitizeTextField } from "./php";

// `GET verify-email-address` (api/core/emails/verify-email-mail.php, includes/emails/
// verify-email-mail.php), public as on the plugin. The plugin stored a verification token and, with
// `fire_email=true`, mailed it; without it, it answered the token itself to anyone who asked (so
// anyone could verify anyone's address), and it said whether an address had an account. This
// Worker sends no mail: every address gets the plugin's own "not sent" answer, the same whether or
// not it has an account, and no token is made or shown. A client treats it as the plugin's failed
// mail (zugavalize-app logs the error and stays on its page).
export const compatVerifyEmail = new Hono<AppEnv>().get("/", async (c) => {
  const params = await readParams(c);
  const email = sanitizeTextField(params.email_address ?? "");
  const notSent =
    email === ""
      ? { status_code: 400, status: false, message: "email not parsed", error: false }
      : {
          status_code: 400,
          status: false,
          message:
            sanitizeTextField(params.fire_email ?? "") === "true"
              ? "Email Not Sent"
              : "Token Not Generated",
          error: { mail: false },
        };
  return send(c, 400, notSent);
});

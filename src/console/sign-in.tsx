// Signing in and out of the console, and the gate every other screen stands behind.

import { type Context, Hono, type MiddlewareHandler } from "hono";
import { sameSecret } from "../auth/same-secret";
import { CONSOLE_AUDIENCE } from "../auth/tokens";
import { readForm } from "../http/decode";
import { type ApiError, MalformedRequest } from "../http/errors";
import { signInFields } from "../http/user-fields";
import type { RefusalReason } from "../wallet/refusal";
import { signIn, signOut } from "../wallet/sign-in";
import { appContext, attempt, fieldWords, refusalText } from "./api";
import type { ConsoleEnv } from "./env";
import { back, field, NOT_ADMIN, noticeOf } from "./page";
import { BASE, endSession, readSession, startSession } from "./session";
import { Field, type Notice, Page, RequiredNote, refusedForm } from "./views";

export const signInScreen = new Hono<ConsoleEnv>({ strict: false });

function signInPage(c: Context<ConsoleEnv>, notice?: Notice, status: 200 | 400 | 403 | 429 = 200) {
  const refused = refusedForm(notice, "sign-in");
  return c.html(
    <Page title="Sign in" notice={notice}>
      <form class="stack card" method="post" action={`${BASE}/sign-in`}>
        <RequiredNote />
        <Field
          label="Email"
          name="email"
          refused={refused}
          type="text"
          autocomplete="username"
          required
        />
        <Field
          label="Password"
          name="password"
          refused={refused}
          type="password"
          autocomplete="current-password"
          required
        />
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">For the service's administrators. The API itself is at /wp-json/.</p>
    </Page>,
    status,
  );
}

/**
 * The sign-in form's fields a refusal is about: the password for credentials not accepted, whether
 * or not the login names an account (the page is the same either way, so it tells no one which
 * logins exist); a field sent empty by its own name.
 */
const SIGN_IN_FIELDS: Record<string, string> = { user_email: "email", user_pass: "password" };
const signInFaults = (refusal: ApiError, reason: RefusalReason | undefined) =>
  reason?.code === "invalid_credential"
    ? ["password"]
    : Object.keys(fieldWords(refusal)).flatMap((key) => SIGN_IN_FIELDS[key] ?? []);

/**
 * What a refused sign-in says: the fields sent empty (past the browser's `required`), by their
 * labels, which are refused before any account is looked up; else that the credentials were not
 * accepted, never which part was wrong.
 */
const EMPTY_SIGN_IN: Record<string, string> = { email: "your email", password: "your password" };
const signInRefusal = (faults: string[], reason: RefusalReason | undefined) =>
  reason?.code === "invalid_credential" || faults.length === 0
    ? "Those credentials were not accepted."
    : `Type ${faults.map((name) => EMPTY_SIGN_IN[name]).join(" and ")}.`;

signInScreen.get("/sign-in", async (c) => signInPage(c, await noticeOf(c)));
signInScreen.post("/sign-in", async (c) => {
  const form = await formOf(c);
  if (typeof form === "string") return signInPage(c, { kind: "error", text: form }, 400);
  // The service's sign-in verb, the API's too, for a console token with a console session
  // (administrators only), counted by the operator's own address.
  const signedIn = await attempt(c, async () =>
    signIn(c.var.service, {
      ...(await signInFields.read(appContext(c), {
        user_email: field(form, "email"),
        user_password: String(form.password ?? ""),
      })),
      audience: CONSOLE_AUDIENCE,
    }),
  );
  if (!signedIn.ok) {
    const { refusal } = signedIn;
    // The login typed stays in its field (the password does not): retyped, a typo came back.
    const refused = (text: string, at: string[] = []): Notice => ({
      kind: "error",
      text,
      refused: { form: "sign-in", fields: { email: field(form, "email") }, at },
    });
    if (refusal.status === 403) return signInPage(c, refused(NOT_ADMIN), 403);
    if (refusal.status !== 429) {
      const faults = signInFaults(refusal, signedIn.reason);
      return signInPage(c, refused(signInRefusal(faults, signedIn.reason), faults), 400);
    }
    for (const [name, value] of Object.entries(refusal.headers)) c.header(name, value);
    return signInPage(c, refused(refusalText(refusal)), 429);
  }
  // The session this browser had ends as Sign out ends it: its cookie is replaced now, so no Sign
  // out could end it afterwards, and a copy of the cookie would open the console for its hour.
  if (await readSession(c)) await attempt(c, () => signOut(c.var.service));
  startSession(c, signedIn.value.accessToken);
  return c.redirect(`${BASE}/`, 303);
});
signInScreen.post("/sign-out", async (c) => {
  const session = await readSession(c);
  const form = await formOf(c);
  if (typeof form === "string") return c.text(form, 400);
  if (session && !sameSecret(field(form, "_csrf"), session.csrf)) return c.text("Forbidden", 403);
  // The session itself ends: the cookie, if kept or stolen, opens nothing.
  const ended = session && (await attempt(c, () => signOut(c.var.service)));
  endSession(c);
  if (ended && !ended.ok)
    return back(c, `${BASE}/sign-in`, {
      kind: "error",
      text: `The cookie is deleted, but the session could not be ended: ${refusalText(ended.refusal)}`,
    });
  return back(c, `${BASE}/sign-in`, { kind: "ok", text: "Signed out." });
});

const SIGNED_OUT =
  "You were signed out, so the form was not sent: nothing was done. Sign in to send it again.";

/** The gate: an administrator's live session, and on a POST the form, with its CSRF token. */
export const requireOperator: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const session = await readSession(c);
  // A form sent after the session ended (signed out in another tab, or expired) did nothing: say so.
  if (!session)
    return c.req.method === "POST"
      ? back(c, `${BASE}/sign-in`, { kind: "error", text: SIGNED_OUT })
      : c.redirect(`${BASE}/sign-in`, 303);
  // No longer an administrator (made a subscriber since signing in): the session ends as sign-out
  // ends it, row and cookie, so the cookie, kept or copied, opens nothing if the role comes back.
  if (session.principal.role !== "administrator") {
    await signOut(c.var.service);
    endSession(c);
    return signInPage(c, { kind: "error", text: NOT_ADMIN }, 403);
  }
  c.set("session", session);
  c.set("form", {});
  if (c.req.method === "POST") {
    const form = await formOf(c);
    if (typeof form === "string") return c.text(form, 400);
    if (!sameSecret(field(form, "_csrf"), session.csrf)) return c.text(FORM_EXPIRED, 403);
    c.set("form", form);
  }
  await next();
};

/** A form whose CSRF token is not this session's: drawn by an earlier session, or elsewhere. */
export const FORM_EXPIRED = "The form has expired: go back, reload the page and try again.";
/** A form the service cannot read, `why` in the words of docs/errors.md. */
export const unreadableForm = (why: string) =>
  `The form could not be read (${why}): nothing was done.`;

/**
 * The posted form, read as strictly as the API reads a form body, or why it cannot be: a body that
 * is not a form, or text that is not UTF-8 (which a browser never sends; never read as U+FFFD,
 * which would make two request_ids one).
 */
const formOf = (c: Context<ConsoleEnv>) =>
  readForm(c.req.raw).catch((err) => {
    if (err instanceof MalformedRequest) return unreadableForm(err.text);
    throw err;
  });

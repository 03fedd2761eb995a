// What every console screen shares: the wallets, form fields, notices carried across a redirect,
// and the page's constants.
import type { Context } from "hono";
import { getSignedCookie, setCookie, setSignedCookie } from "hono/cookie";
import { sameSecret } from "../auth/same-secret";
import { seal, unseal } from "../auth/sealed";
import { jwtSecret } from "../http/auth";
import type { WalletDisplay } from "../ledger/money";
import { C_SPACE, firstChars, trimOf, withinChars } from "../text";
import { sentFromAnotherOrigin } from "./boundary";
import type { ConsoleEnv, Fields } from "./env";
import { consoleKey, cookieOptions, cookiePrefix, dropCookie, readCookie } from "./session";
import type { Notice } from "./views";

export type Wallet = WalletDisplay & { id: string; name: string };

/**
 * Only the console's own stylesheet and script (no inline code, no other origin), forms posted only
 * back to it, never framed, no <base>, no plugins. default-src 'none' already refuses objects; it
 * is said again so that loosening default-src one day would not let them in.
 */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; object-src 'none'";
export const PER_PAGE = 20;
export const NOT_ADMIN =
  "Sorry, this console is for administrators. Your account works with the API and the apps built on it.";

export const freshKey = () => `console-${crypto.randomUUID()}`;
/** "1 user", "2 users". */
export const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
/**
 * A form's field trimmed of C's white space, as the API trims a wallet id (a pasted id's stray
 * space or line break), no other: a no-break space stays and is judged as the API judges it.
 * "" when it was not sent.
 */
export const field = (form: Fields, name: string) => trimOf(form[name] ?? "", C_SPACE);
/** The form's fields `names`, each as `field` reads it. */
export const fieldsOf = (form: Fields, names: string[]) =>
  Object.fromEntries(names.map((name) => [name, field(form, name)]));
const NOTICE_COOKIE = "wallet_admin_notice";
/** Characters of a notice kept: percent-encoded, the longest fits a browser's 4 KB cookie. */
const NOTICE_MAX = 300;
/** A notice cookie's value, percent-encoded, at the most: a browser drops a cookie past 4 KB. */
const NOTICE_COOKIE_MAX = 3_800;

/**
 * A redirect back to a page, with a notice for it to show once. The notice rides in a cookie of the
 * console's own for a minute, signed (consoleKey, from JWT_SECRET), never in the address: neither a
 * link anyone can send an operator nor a cookie set from elsewhere puts words on the console's
 * screens. It names the page it is for, by its path (a page reads its own without the query or the
 * fragment `to` may have), so a page another tab opens meanwhile neither shows nor spends it.
 */
export async function back(c: Context<ConsoleEnv>, to: string, notice: NonNullable<Notice>) {
  const kept = withinChars(notice.text, NOTICE_MAX)
    ? notice.text
    : `${firstChars(notice.text, NOTICE_MAX - 1)}…`;
  // A refused form's fields while they fit the cookie beside the text: else without its note, else
  // none (the form is then drawn empty).
  const { note: _, ...noteless } = notice.refused?.fields ?? {};
  const values = [
    notice.refused,
    notice.refused && { ...notice.refused, fields: noteless },
    undefined,
  ].map((refused) => JSON.stringify([notice.kind, to.split(/[?#]/, 1)[0], kept, refused]));
  const value =
    values.find((v) => encodeURIComponent(v).length <= NOTICE_COOKIE_MAX) ?? values.at(-1)!;
  await setSignedCookie(c, NOTICE_COOKIE, value, consoleKey(c, "notice"), cookieOptions(c, 60));
  return c.redirect(to, 303);
}

/**
 * The notice `back` left for this page: shown on it, gone from the next. One left for another page
 * stays for it; one this service did not sign is dropped.
 */
export async function noticeOf(c: Context<ConsoleEnv>): Promise<Notice> {
  if (readCookie(c, NOTICE_COOKIE) === undefined) return undefined;
  const left = await getSignedCookie(c, consoleKey(c, "notice"), NOTICE_COOKIE, cookiePrefix(c));
  // Signed, it is what `back` wrote; else (no signature, or another) none.
  const [kind, page, text, refused] = typeof left === "string" ? JSON.parse(left) : [];
  if (page !== undefined && page !== c.req.path) return undefined;
  dropCookie(c, NOTICE_COOKIE);
  if (kind === undefined) return undefined;
  return refused ? { kind, text, refused } : { kind, text };
}

/** A secret's cookie, one per page that shows secrets, so two tabs' new credentials both wait. */
const secretCookie = (page: string) =>
  `wallet_admin_secret_${page.slice(page.lastIndexOf("/") + 1)}`;
export const SECRET_PURPOSE = "wallet-ledger console secret shown once v1";

/**
 * A redirect to the page that shows a new credential's secret once (an API key, a webhook's signing
 * secret), with the notice `text`. The secret rides in a one-minute cookie of the console's own, sealed
 * (AES-GCM, a key derived from JWT_SECRET), never in the form's answer: a reload or Back posts
 * nothing again, so no second credential is made. It is sealed with the session's CSRF token and
 * shown only to that session: signed out, and another operator signed in on the same browser
 * within the minute, it is never shown.
 */
export async function backWithSecret(
  c: Context<ConsoleEnv>,
  to: string,
  shown: Record<string, string>,
  text: string,
) {
  const held = JSON.stringify({ session: c.var.session.csrf, shown });
  const sealed = await seal(held, jwtSecret(c), SECRET_PURPOSE);
  setCookie(c, secretCookie(to), sealed, cookieOptions(c, 60));
  return back(c, to, { kind: "ok", text });
}

/**
 * The secret `backWithSecret` left for this page: shown on it, gone from the next. A page another
 * origin's page opened (a link, a window it opened and closed) leaves it for the console's own
 * redirect, which `backWithSecret` sent, so no other site can use it up unseen.
 */
export async function secretOf(
  c: Context<ConsoleEnv>,
): Promise<Record<string, string> | undefined> {
  const name = secretCookie(c.req.path);
  const sealed = readCookie(c, name);
  if (sealed === undefined || sentFromAnotherOrigin(c)) return undefined;
  dropCookie(c, name);
  const opened = await unseal(sealed, jwtSecret(c), SECRET_PURPOSE);
  if (opened === null) return undefined;
  const held = JSON.parse(opened) as { session: string; shown: Record<string, string> };
  return sameSecret(held.session, c.var.session.csrf) ? held.shown : undefined;
}

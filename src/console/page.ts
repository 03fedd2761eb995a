// What every console screen shares: the wallets, form fields, notices carried across a redirect,
// and the page's constants.
import type { Context } from "hono";
import * as v from "valibot";
import type { WalletDisplay } from "../ledger/money";
import { allWallets } from "../wallet/wallets";
import type { ConsoleEnv, Fields } from "./env";
import { queryOf, Text } from "./query";
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
export const DAY_S = 86_400;

export const freshKey = () => `console-${crypto.randomUUID()}`;
export const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
/** An instant (epoch milliseconds) as UTC date and time, to the minute or to the second. */
export const utc = (ms: number, to: "minute" | "second" = "minute") =>
  new Date(ms)
    .toISOString()
    .slice(0, to === "minute" ? 16 : 19)
    .replace("T", " ");
export const field = (form: Fields, name: string) => {
  const value = form[name];
  return typeof value === "string" ? value.trim() : "";
};
/** A redirect back to a page, with a notice for it to show. */
export const back = (c: Context<ConsoleEnv>, to: string, notice: NonNullable<Notice>) =>
  c.redirect(
    `${to}${to.includes("?") ? "&" : "?"}${notice.kind}=${encodeURIComponent(notice.text)}`,
    303,
  );
/** What a redirect back to a page (`back`) asked it to show. */
const NoticeQuery = v.object({ ok: Text, error: Text });

export const noticeOf = (c: Context<ConsoleEnv>): Notice => {
  const { ok, error } = queryOf(c, NoticeQuery);
  return error ? { kind: "error", text: error } : ok ? { kind: "ok", text: ok } : undefined;
};

/** The service's wallets, by id. */
export const wallets = (c: Context<ConsoleEnv>): Promise<Wallet[]> => allWallets(c.var.service);

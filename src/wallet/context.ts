// What every verb of the service is given: who asks, and where and when it runs. Built once per
// request (app.ts) for the API, both dialects and the console alike; verbs see no HTTP framework,
// and each checks its caller's right on its first line, so a caller that is not a route (the
// console, a test) is held to the same rules as one that is.
import type { Pace } from "../auth/pace";
import { type Principal, type Scope, scopeAllows } from "../auth/principal";
import type { Db } from "../db/client";
import type { Outbound } from "../events/deliver";
import { type EntryStamp, seconds } from "../ledger/entries";
import type { SiteSettings } from "../ledger/transaction-record";
import type { Ledger } from "../ledger/writer";
import type { MailSender, MailSetting } from "../mail/transport";
import type { HistoryGateNamespace } from "../throttle/history-gate";
import type { ThrottleNamespace } from "../throttle/sign-in";
import { Refusal } from "./refusal";

export type ServiceContext = {
  /** The verified caller; undefined before a route authenticated one (public routes, sign-in). */
  readonly principal: Principal | undefined;
  /** The request's id: its answer's X-Request-Id, and what its log lines carry. */
  requestId: string;
  /** The request's Drizzle handle, on its one D1 session. */
  db: Db;
  /** Where credits are written and balances read (ledger/writer.ts). */
  ledger: Ledger;
  nowMs: () => number;
  /**
   * Lets work (a bookkeeping write, a mail) finish after the answer is sent, its failure ignored;
   * where the runtime cannot (the tests' app.request), the promise to await instead.
   */
  afterAnswer: (work: Promise<unknown>) => Promise<void>;
  /**
   * When and through which site the request's entries are written (their guid): one instant for the
   * whole request, taken when first asked, so what reads back what was judged at it (a refusal
   * worded from the holds that counted) reads at the same instant.
   */
  stamp: () => EntryStamp;
  /** The site's base URL and time zone, which records read back. */
  site: () => SiteSettings;
  /**
   * The D1 binding, by which this isolate keys what it caches: wallets, usernames, keys and sessions
   * (db/isolate-cache.ts), webhook endpoints (events/queue.ts), the migration check (db/health.ts).
   */
  d1: D1Database;
  /** What signs tokens (a refusal while JWT_SECRET is unset or weak). */
  tokenKeys: () => TokenKeys;
  /** What a sign-in is counted and paced by (docs/security.md#sign-in-throttling). */
  signInLimits: () => SignInLimits;
  /**
   * What webhooks seal secrets with and send through (a refusal while WEBHOOK_SECRET_KEY is unset or
   * short, or WEBHOOK_QUEUE unbound).
   */
  webhooks: () => WebhookSettings;
  /** How mailed links are sent (docs/mail.md): the transport, or what is missing for one. */
  mail: () => MailSettings;
  /** Whose turn it is at a long read, per caller (`wallet/transactions.ts` `gated`). */
  historyGate: HistoryGateNamespace;
  /** Each caller's share of money requests (MONEY_RATE_LIMIT); none: no limit. */
  moneyLimiter?: RateLimit;
};

export type TokenKeys = { secret: string; issuer: string };

type SignInLimits = {
  throttle: ThrottleNamespace;
  /** CF-Connecting-IP of whoever typed the password: the throttle counts addresses by it. */
  clientAddress: string | undefined;
  pace: Pace;
};

export type WebhookSettings = {
  /** WEBHOOK_SECRET_KEY: seals and opens the signing secrets. */
  secretKey: string;
  /** WEBHOOK_ALLOW_LOCAL: loopback URLs (over http too) are allowed, for development. */
  allowLocal: boolean;
  outbound: Outbound;
};

export type MailSettings = {
  /** The transport (mail/transport.ts mailSender), or what is missing for one. */
  send: MailSender | { missing: MailSetting[] };
  /** MAIL_LIMIT_PER_CLIENT: mails one client may ask for in an hour, to any addresses; 0, no limit. */
  perClient: number;
};

/** A record as the caller named it: its id (null when the text names none) and the text sent. */
export type IdRef = { id: number | null; ref: string };

/** An administrator whose key (if a key) allows `access`. */
export const isAdmin = (p: Principal, access: Scope) =>
  p.role === "administrator" && scopeAllows(p.scope, access);

/**
 * Whether `p` may read about user `userId`: administrators read anyone, subscribers only themselves
 * (`undefined` means the caller's own user); a key needs the read scope.
 */
export const mayReadUser = (p: Principal, userId: number | undefined) =>
  scopeAllows(p.scope, "read") &&
  (p.role === "administrator" || userId === undefined || userId === p.userId);

/** The caller, or a refusal when nobody signed in. */
export function caller(ctx: ServiceContext): Principal {
  if (!ctx.principal) throw new Refusal({ code: "not_signed_in" });
  return ctx.principal;
}

/** The caller, who must be an administrator allowed `access`. */
export function requireAdmin(ctx: ServiceContext, access: Scope): Principal {
  const p = caller(ctx);
  if (!isAdmin(p, access)) throw new Refusal({ code: "forbidden" });
  return p;
}

/**
 * Counts one money request against its caller (a user, whichever of its tokens and keys it sent),
 * before anything is read: past its share, a `rate_limited` refusal (docs/security.md#rate-limits).
 * Every surface that moves money asks this first: each money route, and the console's forms.
 */
export async function spendMoneyShare(ctx: ServiceContext) {
  const limiter = ctx.moneyLimiter;
  if (!limiter) return;
  const { success } = await limiter.limit({ key: `user:${caller(ctx).userId}` });
  if (!success) {
    // Cloudflare's limiter counts in minutes: the share comes back when this one turns.
    const retryAfterS = 60 - (seconds(ctx.nowMs()) % 60);
    throw new Refusal({ code: "rate_limited", retryAfterS });
  }
}

/** The caller, who must be allowed to read about user `userId` (undefined: the caller's own). */
export function requireReader(ctx: ServiceContext, userId: number | undefined): Principal {
  const p = caller(ctx);
  if (!mayReadUser(p, userId)) throw new Refusal({ code: "forbidden" });
  return p;
}

/** The user a read is about (`userId`, else the caller), for a caller allowed to read about it. */
export function readUserId(ctx: ServiceContext, userId: number | undefined) {
  const p = requireReader(ctx, userId);
  return userId ?? p.userId;
}

/** A user's filtered read refused for what it named and is missing: the wallet, then the user. */
export function requireExisting(
  found: { userExists: boolean; walletExists: boolean },
  filter: { userId: number; walletId?: string },
) {
  if (!found.walletExists)
    throw new Refusal({ code: "wallet_not_found", walletId: filter.walletId ?? "" });
  if (!found.userExists) throw new Refusal({ code: "user_not_found", userId: filter.userId });
}

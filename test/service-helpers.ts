import { env } from "cloudflare:workers";
import type { Principal, Scope } from "../src/auth/principal";
import { createDb } from "../src/db/client";
import type { Outbound } from "../src/events/deliver";
import type { DeadLetter, PumpDeps } from "../src/events/pump";
import { d1Ledger } from "../src/ledger/writer";
import type { ServiceContext } from "../src/wallet/context";
import { credit } from "../src/wallet/movements";
import { Refusal, type RefusalReason } from "../src/wallet/refusal";
import { createWallet } from "../src/wallet/wallets";
import { importedEntry, type TestUser, unique } from "./helpers";

export const SITE = { siteUrl: "https://wallet.example.test", timeZone: "UTC" };

/** What a verb is given, without HTTP: `as` the caller (none: nobody signed in), on env.DB. */
export function serviceAs(as?: TestUser | Principal, scope?: Scope): ServiceContext {
  const db = createDb(env.DB);
  const principal =
    as &&
    ({
      userId: "userId" in as ? as.userId : as.id,
      username: as.username,
      role: as.role,
      scope,
    } satisfies Principal);
  return {
    principal,
    requestId: crypto.randomUUID(),
    db,
    ledger: d1Ledger({ db, env, keepAlive: () => {} }),
    nowMs: Date.now,
    afterAnswer: (work) =>
      work.then(
        () => {},
        () => {},
      ),
    stamp: () => ({ nowMs: Date.now(), guidSite: null }),
    site: () => SITE,
    d1: env.DB,
    tokenKeys: () => ({ secret: env.JWT_SECRET!, issuer: env.JWT_ISSUER }),
    signInLimits: () => ({
      throttle: env.LOGIN_THROTTLE,
      clientAddress: "192.0.2.1",
      pace: async () => {},
    }),
    historyGate: env.HISTORY_GATE,
    webhooks: () => ({
      secretKey: env.WEBHOOK_SECRET_KEY!,
      allowLocal: true,
      outbound: () => Promise.resolve(new Response(null, { status: 204 })),
    }),
    mail: () => ({ send: { outbox: true }, perClient: 0 }),
  };
}

/** A new wallet of two decimals, written by the service. */
export async function serviceWallet() {
  const id = unique("w").toLowerCase().slice(0, 32);
  const made = await createWallet(
    createDb(env.DB),
    { id, name: "Naira", symbol: "₦", symbolPosition: "left", decimals: 2, type: "fiat", note: "" },
    Date.now(),
  );
  if (typeof made !== "object" || !("wallet" in made)) throw new Error("wallet not created");
  return id;
}

/** A credit written by the credit verb as `admin`: its entry id. */
export async function serviceCredit(
  admin: TestUser,
  user: TestUser,
  walletId: string,
  amount = "5.00",
) {
  const moved = await credit(serviceAs(admin), {
    user: { id: user.id },
    walletId,
    amount: { sent: amount, policy: "refuse-excess-places" },
    requestId: unique("req"),
    note: "service test",
  });
  return moved.transactionId;
}

/** The reason a verb refused, or a failure when it did not. */
export async function refusalOf(verb: Promise<unknown>): Promise<RefusalReason> {
  try {
    await verb;
  } catch (err) {
    if (err instanceof Refusal) return err.reason;
    throw err;
  }
  throw new Error("the verb did not refuse");
}

/** What the webhook pump is given, on env.DB: the receiver, the clock, where dead letters go. */
export function pumpDeps(
  outbound: Outbound,
  nowMs: () => number,
  letters: DeadLetter[] = [],
): PumpDeps {
  return {
    db: createDb(env.DB),
    outbound,
    secretKey: env.WEBHOOK_SECRET_KEY!,
    site: { siteUrl: env.SITE_URL, timeZone: "UTC" },
    retryBaseS: 60,
    leaseS: 60,
    allowLocal: true,
    nowMs,
    deadLetter: async (l) => letters.push(l),
  };
}

/**
 * A transfer a WordPress site made from a user to that same user, as an import keeps it, a minute
 * ago after a credit of 100: its CREDIT half, then its DEBIT half (50 each), linked, on one chain.
 */
export async function importedSelfTransfer(userId: number, walletId: string) {
  const atS = Math.floor(Date.now() / 1000) - 60;
  const link = unique("self");
  await importedEntry(userId, walletId, "CREDIT", 10_000, "100", 0, atS);
  await importedEntry(userId, walletId, "CREDIT", 5_000, "50", 10_000, atS, { transferId: link });
  await importedEntry(userId, walletId, "DEBIT", 5_000, "50", 15_000, atS, { transferId: link });
  const { results } = await env.DB.prepare(
    "SELECT id FROM transactions WHERE transfer_id = ? ORDER BY id",
  )
    .bind(link)
    .all<{ id: number }>();
  const [creditHalf, debitHalf] = results.map((r) => r.id) as [number, number];
  return { atS, creditHalf, debitHalf };
}

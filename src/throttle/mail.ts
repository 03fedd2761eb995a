// Mail is counted in the same Durable Objects as sign-ins (one object per key, every isolate
// reaching the same one), under keys and policies of its own: per client address over every e-mail
// address (POLICIES.client), and to one e-mail address per client that asks (POLICIES.mail) and
// over every client (POLICIES.inbox).
import { asciiLower } from "../ledger/request-key";
import type { ThrottleKind } from "./policy";
import { addressKey, objectFor, type ThrottleNamespace } from "./sign-in";

/**
 * An address by its text, letters A-Z lowered as the database folds them (two accounts' addresses
 * are two keys), whether or not an account has it: a 429 tells nothing.
 */
export const inboxKey = (email: string) => `mail:${asciiLower(email.trim())}`;

/** A refusal, with the seconds to wait and whose share was spent: the client's or the address's. */
export type MailRefusal = { allowed: false; retryAfterS: number; spent: "client" | "address" };

type Share = { key: string; kind: ThrottleKind; limit?: number };

/**
 * Counts one mail to `email` asked for from `clientAddress` (CF-Connecting-IP; none is one client):
 * refused once that client had `perClient` mails in the hour to any addresses (0: no such limit),
 * or its share for this address, or every client together had the address's. Each share is asked
 * only when the ones before it allowed the mail, and a refusal gives those back: a refused request
 * spends nothing.
 */
export async function reserveMail(
  ns: ThrottleNamespace,
  email: string,
  clientAddress: string | undefined,
  perClient: number,
  nowMs: number,
): Promise<{ allowed: true } | MailRefusal> {
  const from = addressKey(clientAddress);
  const shares: Share[] = [
    ...(perClient > 0
      ? [{ key: `mails from ${from}`, kind: "client" as const, limit: perClient }]
      : []),
    { key: `${inboxKey(email)} from ${from}`, kind: "mail" },
    { key: inboxKey(email), kind: "inbox" },
  ];
  const held: (() => Promise<void>)[] = [];
  for (const { key, kind, limit } of shares) {
    const object = await objectFor(ns, key);
    const r = await object.reserve(kind, nowMs, limit);
    if (!r.allowed) {
      await Promise.all(held.map((giveBack) => giveBack()));
      return { ...r, spent: kind === "client" ? "client" : "address" };
    }
    held.push(() => object.release(kind, r.reservedAtMs, limit));
  }
  return { allowed: true };
}

/**
 * A guess at a mailed code from `clientAddress`, counted against that address like a failed
 * sign-in (POLICIES.address), before the code is looked up; `succeeded` gives it back.
 */
export async function reserveGuess(
  ns: ThrottleNamespace,
  clientAddress: string | undefined,
  nowMs: number,
) {
  const object = await objectFor(ns, addressKey(clientAddress));
  const reservation = await object.reserve("address", nowMs);
  return {
    reservation,
    succeeded: async () => {
      if (reservation.allowed) await object.release("address", reservation.reservedAtMs);
    },
  };
}

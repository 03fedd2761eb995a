// Mail to one e-mail address is counted in the same Durable Objects as sign-ins (one object per
// key, every isolate reaching the same one), under keys and policies of its own (POLICIES.mail and
// POLICIES.inbox): per client address that asks, and per e-mail address over every client.
import { asciiLower } from "../ledger/request-key";
import type { Reservation } from "./policy";
import { addressKey, objectFor, type ThrottleNamespace } from "./sign-in";

/**
 * An address by its text, letters A-Z lowered as the database folds them (two accounts' addresses
 * are two keys), whether or not an account has it: a 429 tells nothing.
 */
export const inboxKey = (email: string) => `mail:${asciiLower(email.trim())}`;

/**
 * Counts one mail to `email` asked for from `clientAddress` (CF-Connecting-IP): refused, with the
 * seconds to wait, once that client had its share for the address or every client together had
 * the address's. A refusal by the address's share gives the client's reservation back.
 */
export async function reserveMail(
  ns: ThrottleNamespace,
  email: string,
  clientAddress: string | undefined,
  nowMs: number,
): Promise<Reservation> {
  const requester = await objectFor(ns, `${inboxKey(email)} from ${addressKey(clientAddress)}`);
  const own = await requester.reserve("mail", nowMs);
  if (!own.allowed) return own;
  const inbox = await (await objectFor(ns, inboxKey(email))).reserve("inbox", nowMs);
  if (!inbox.allowed) await requester.release("mail", own.reservedAtMs, own.lockedNow);
  return inbox.allowed ? own : inbox;
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
      if (reservation.allowed)
        await object.release("address", reservation.reservedAtMs, reservation.lockedNow);
    },
  };
}

// Mail is counted in the same Durable Objects as sign-ins (one object per key, every isolate
// reaching the same one), under keys and policies of its own: per client address over every e-mail
// address (POLICIES.client, in the client's object), and to one e-mail address, per client that
// asks (POLICIES.mail) and over every client (POLICIES.inbox), both in the address's object. The
// client's count and the address's cannot be one object's (that one object would take every mail
// request), so a request asks two objects in turn.
import { asciiLower } from "../ledger/request-key";
import { addressKey, keyName, objectFor, type ThrottleNamespace } from "./sign-in";

/**
 * An address by its text, letters A-Z lowered as the database folds them (two accounts' addresses
 * are two keys), whether or not an account has it: a 429 tells nothing.
 */
export const inboxKey = (email: string) => `mail:${asciiLower(email.trim())}`;

/** A refusal, with the seconds to wait and whose share was spent: the client's or the address's. */
type MailRefusal = { allowed: false; retryAfterS: number; spent: "client" | "address" };

/**
 * Counts one mail to `email` asked for from `clientAddress` (CF-Connecting-IP; none is one client):
 * refused once that client had `perClient` mails in the hour to any addresses (0: no such limit),
 * or its share for this address, or every client together had the address's. The client's count
 * is asked first, and given back when the address refuses or cannot answer: a refused or failed
 * request spends nothing.
 */
export async function reserveMail(
  ns: ThrottleNamespace,
  email: string,
  clientAddress: string | undefined,
  perClient: number,
  nowMs: number,
): Promise<{ allowed: true } | MailRefusal> {
  const from = addressKey(clientAddress);
  const client = perClient > 0 ? objectFor(ns, `mails from ${from}`) : undefined;
  const held = await client?.reserve("client", nowMs, perClient);
  if (held && !held.allowed) return { ...held, spent: "client" };
  // Given back when the address refuses or cannot be asked. A give-back that fails leaves the
  // client one mail fewer this hour, and changes no answer: the request's own outcome stands.
  const giveBack = async () => {
    if (held) await client?.release("client", held.reservedAtMs, perClient).catch(() => {});
  };
  const inbox = objectFor(ns, inboxKey(email));
  const reservation = await inbox.reserveInbox(keyName(from), nowMs).catch(async (err) => {
    await giveBack();
    throw err;
  });
  if (reservation.allowed) return reservation;
  await giveBack();
  return { ...reservation, spent: "address" };
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
  const object = objectFor(ns, addressKey(clientAddress));
  const reservation = await object.reserve("address", nowMs);
  return {
    reservation,
    succeeded: async () => {
      if (reservation.allowed) await object.release("address", reservation.reservedAtMs);
    },
  };
}

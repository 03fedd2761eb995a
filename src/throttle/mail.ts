// Mail to one e-mail address is counted in the same Durable Objects as sign-ins (one object per
// key, every isolate reaching the same one), under its own key and policy (POLICIES.mail).
import { objectFor, type ThrottleNamespace } from "./sign-in";

/** An address by its lower-cased text, whether or not an account has it: a 429 tells nothing. */
export const mailKey = (email: string) => `mail:${email.trim().toLowerCase()}`;

/** Counts one mail to `email`; refused (with the seconds to wait) once the address had its share. */
export async function reserveMail(ns: ThrottleNamespace, email: string, nowMs: number) {
  const reservation = await (await objectFor(ns, mailKey(email))).reserve("mail", nowMs);
  return reservation.allowed ? { allowed: true as const } : reservation;
}

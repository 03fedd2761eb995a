// The login route's side of the throttle: which keys an attempt counts against, and the calls to
// their Durable Objects (login-throttle.ts).

import { sha256Hex } from "../auth/sha256";
import type { SignInReservation } from "./account-policy";
import type { Reservation } from "./policy";

export type ThrottleNamespace = Env["LOGIN_THROTTLE"];

/**
 * A key's name: its SHA-256, since a login text can be 64 KiB long. It names the key's object, and an
 * account's object keeps its addresses by it (not the addresses themselves).
 */
const keyName = (key: string) => sha256Hex(key);

/** One object per key (throttle/mail.ts counts mails by the same rule). */
export const objectFor = async (ns: ThrottleNamespace, key: string) =>
  ns.get(ns.idFromName(keyName(key)));

type ThrottleObject = Awaited<ReturnType<typeof objectFor>>;

/**
 * An existing user is counted by id, whichever of its e-mail or username is typed; any other login
 * by its lower-cased text, so an unknown login is throttled exactly like a known one and a 429 says
 * nothing about which e-mails exist.
 */
export const accountKey = (userId: number | undefined, login: string) =>
  userId === undefined ? `account:login:${login.toLowerCase()}` : `account:user:${userId}`;

const HEXTET = /^[0-9a-f]{1,4}$/;

/**
 * The client address from CF-Connecting-IP, which Cloudflare sets on every request in production (a
 * client's own value is replaced); locally wrangler dev sets it from the socket unless the client
 * sends one. An IPv6 client usually holds a whole /64, so its first four groups name it.
 */
export function addressKey(header: string | undefined): string {
  const text = header?.trim().toLowerCase() ?? "";
  if (text === "") return "address:unknown";
  if (!text.includes(":")) return `address:${text}`;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (mapped) return `address:${mapped[1]}`;
  const halves = text.split("::");
  const left = halves[0] ? halves[0].split(":") : [];
  const right = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const fill = 8 - left.length - right.length;
  const groups =
    halves.length === 1 ? left : [...left, ...Array<string>(Math.max(fill, 0)).fill("0"), ...right];
  if (
    halves.length > 2 ||
    groups.length !== 8 ||
    (halves.length === 2 && fill < 1) ||
    !groups.every((g) => HEXTET.test(g))
  )
    return `address:${text}`;
  return `address:${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** An operator's unlock: forgets the account's pair locks and its ceiling (its known addresses stay). */
export const unlockAccount = async (ns: ThrottleNamespace, userId: number, nowMs: number) =>
  (await objectFor(ns, accountKey(userId, ""))).unlock(nowMs);

type Held<R> = Extract<R, { allowed: true }>;

/**
 * One sign-in attempt: one call to the client address's object (reserved while the user is looked
 * up: it does not depend on the user), then one to the account's (it does), which decides the
 * (account, address) pair, whether the address is one the account signed in from, and the
 * account's ceiling together. Only when both are reserved is the password checked; a refusal by
 * the account gives the address its reservation back, so a locked account does not use up its
 * client's allowance. A good password is one more call to each, in parallel. One object per key
 * (rather than one object taking both keys) keeps every key's calls serial and every key's load on
 * its own object, with no object that every sign-in must pass through; the pair lives in the
 * account's object because the account decides it with the known addresses and the ceiling.
 */
export class SignInAttempt {
  private address: { name: string; object: ThrottleObject; held?: Held<Reservation> } | undefined;
  private account: { object: ThrottleObject; held: Held<SignInReservation> } | undefined;

  constructor(
    private readonly ns: ThrottleNamespace,
    private readonly clientAddress: string | undefined,
    private readonly nowMs: number,
  ) {}

  /** The user the login names, or how many seconds until the attempt may be made again. */
  async admit<U extends { id: number }>(
    login: string,
    lookup: Promise<U | undefined>,
  ): Promise<{ user: U | undefined; retryAfterS?: number }> {
    const name = keyName(addressKey(this.clientAddress));
    const address = { name, object: this.ns.get(this.ns.idFromName(name)) };
    const [user, reservation] = await Promise.all([
      lookup,
      address.object.reserve("address", this.nowMs),
    ]);
    if (!reservation.allowed) return { user, retryAfterS: reservation.retryAfterS };
    this.address = { ...address, held: reservation };
    const account = await objectFor(this.ns, accountKey(user?.id, login));
    const accountReservation = await account.reserveSignIn(name, this.nowMs);
    if (accountReservation.allowed) {
      this.account = { object: account, held: accountReservation };
      return { user };
    }
    await address.object.release("address", reservation.reservedAtMs, reservation.lockedNow);
    return { user, retryAfterS: accountReservation.retryAfterS };
  }

  /** A good password: the pair starts over, the address is known, both reservations go back. */
  async succeeded() {
    const { address, account } = this;
    const held = address?.held;
    await Promise.all([
      address && account?.object.signedIn(address.name, account.held, this.nowMs),
      held && address.object.release("address", held.reservedAtMs, held.lockedNow),
    ]);
  }
}

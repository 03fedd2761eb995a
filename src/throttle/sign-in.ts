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
 * A login as typed, by its lower-cased text, whether or not a user has it: what the client is told
 * (a 429) depends on this key's count alone, so it says nothing about which logins exist, nor that
 * an e-mail and a username are one user's.
 */
export const loginKey = (login: string) => `account:login:${login.toLowerCase()}`;

/** An existing user, whichever of its e-mail or username is typed: its refusals are silent. */
export const accountKey = (userId: number) => `account:user:${userId}`;

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

/**
 * An operator's unlock: forgets the pair locks and the ceiling of the account and of its two logins
 * (their known addresses stay). The failures counted are the account's, which counts both logins.
 */
export async function unlockAccount(
  ns: ThrottleNamespace,
  user: { id: number; username: string; email: string },
  nowMs: number,
) {
  const keys = [accountKey(user.id), loginKey(user.username), loginKey(user.email)];
  const [account, ...logins] = await Promise.all(
    keys.map(async (key) => (await objectFor(ns, key)).unlock(nowMs)),
  );
  return { failures: account!.failures, locked: [account!, ...logins].some((u) => u.locked) };
}

type Held<R> = Extract<R, { allowed: true }>;

/**
 * One sign-in attempt: one call to the client address's object (reserved while the user is looked
 * up: it does not depend on the user), then, in parallel, one to the typed login's and, for an
 * existing user, one to the account's. Each decides its (key, address) pair, whether the address is
 * one the key signed in from, and its ceiling together. The login's refusal is answered 429; the
 * account's (which counts both its logins, so typing the other one gains a guesser nothing) is
 * answered as a wrong password, its password unchecked: a 429 then cannot tell that an e-mail is
 * the username's that was locked. A 429 gives the address its reservation back (and the account
 * its own, after the answer), so a locked login does not use up its client's allowance. A good
 * password is one more call to each, in parallel. One object per key keeps every key's calls
 * serial and its load on its own object, with no object every sign-in must pass through.
 */
export class SignInAttempt {
  private address: { name: string; object: ThrottleObject; held?: Held<Reservation> } | undefined;
  private held: { object: ThrottleObject; held: Held<SignInReservation> | null }[] = [];

  constructor(
    private readonly ns: ThrottleNamespace,
    private readonly clientAddress: string | undefined,
    private readonly nowMs: number,
    /** Lets work finish after the answer (waitUntil). */
    private readonly keepAlive: (work: Promise<unknown>) => void,
  ) {}

  /**
   * The user the login names, and how many seconds until the attempt may be made again (a 429), or
   * `accountLocked`: refuse it as a wrong password, without checking one.
   */
  async admit<U extends { id: number; username: string; email: string }>(
    login: string,
    lookup: Promise<U | undefined>,
  ): Promise<{ user: U | undefined; retryAfterS?: number; accountLocked?: true }> {
    const name = keyName(addressKey(this.clientAddress));
    const address = { name, object: this.ns.get(this.ns.idFromName(name)) };
    const [user, reservation] = await Promise.all([
      lookup,
      address.object.reserve("address", this.nowMs),
    ]);
    if (!reservation.allowed) return { user, retryAfterS: reservation.retryAfterS };
    this.address = { ...address, held: reservation };
    const typed = await objectFor(this.ns, loginKey(login));
    const account = user && (await objectFor(this.ns, accountKey(user.id)));
    const [typedHeld, accountHeld] = await Promise.all([
      typed.reserveSignIn(name, this.nowMs),
      account?.reserveSignIn(name, this.nowMs),
    ]);
    if (!typedHeld.allowed) {
      if (accountHeld?.allowed) this.keepAlive(account!.releaseSignIn(name, accountHeld));
      await address.object.release("address", reservation.reservedAtMs, reservation.lockedNow);
      return { user, retryAfterS: typedHeld.retryAfterS };
    }
    this.held.push({ object: typed, held: typedHeld });
    if (account && accountHeld) {
      if (!accountHeld.allowed) return { user, accountLocked: true };
      this.held.push({ object: account, held: accountHeld });
      // Its other login learns of a good password too: the address is known there as well.
      for (const other of new Set([loginKey(user.username), loginKey(user.email)]))
        if (other !== loginKey(login))
          this.held.push({ object: await objectFor(this.ns, other), held: null });
    }
    return { user };
  }

  /**
   * A good password: the pairs start over, the address is known (to the account and both its
   * logins), every reservation goes back.
   */
  async succeeded() {
    const { address } = this;
    const held = address?.held;
    await Promise.all([
      ...this.held.map((k) => address && k.object.signedIn(address.name, k.held, this.nowMs)),
      held && address.object.release("address", held.reservedAtMs, held.lockedNow),
    ]);
  }
}

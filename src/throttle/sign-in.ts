// The login route's side of the throttle: which keys an attempt counts against, and the calls to
// their Durable Objects (login-throttle.ts).

import { sha256Hex } from "../auth/sha256";
import { asciiLower } from "../ledger/request-key";
import type { SignInReservation } from "./account-policy";
import type { Reservation } from "./policy";

/** The binding as the service calls it (wallet/faults.ts `reachable`). */
export type ThrottleNamespace = Pick<Env["LOGIN_THROTTLE"], "idFromName" | "get">;

/**
 * A key's name: its SHA-256, since a login text can be 64 KiB long. It names the key's object, and an
 * account's object keeps its addresses by it (not the addresses themselves).
 */
export const keyName = (key: string) => sha256Hex(key);

/** One object per key (throttle/mail.ts counts mails by the same rule). */
export const objectFor = (ns: ThrottleNamespace, key: string) =>
  ns.get(ns.idFromName(keyName(key)));

type ThrottleObject = ReturnType<typeof objectFor>;

/**
 * A login as typed, whether or not a user has it, its letters A-Z lowered as the database's lower()
 * folds them (so two users' logins are never one key): it alone is counted, so a 429 says nothing
 * about which logins exist, nor that an e-mail and a username are one user's.
 */
export const loginKey = (login: string) => `account:login:${asciiLower(login)}`;

/** An existing user, whichever of its logins is typed: the addresses it signed in from. */
export const accountKey = (userId: number) => `account:user:${userId}`;

/**
 * Asked in the account's place when a login names nobody, so that every attempt asks two objects:
 * it keeps nothing (only `knows` is asked of it).
 */
const nobodyKey = (login: string) => `account:nobody:${asciiLower(login)}`;

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
 * An operator's unlock: forgets the pair locks and the ceilings of the logins that name the user
 * (its e-mail, and its username unless that is another user's e-mail), and what the account's
 * object still counts; the known addresses stay. It says what those logins counted.
 */
export async function unlockAccount(
  ns: ThrottleNamespace,
  user: { id: number; logins: string[] },
  nowMs: number,
) {
  const unlock = async (key: string) => objectFor(ns, key).unlock(nowMs);
  const [cleared] = await Promise.all([
    Promise.all([...new Set(user.logins.map(loginKey))].map(unlock)),
    unlock(accountKey(user.id)),
  ]);
  return {
    failures: cleared.reduce((n, c) => n + c.failures, 0),
    locked: cleared.some((c) => c.locked),
  };
}

/**
 * Asks the account's object a question that writes nothing, before a deletion that forgetAccount
 * must follow: a binding of the other class (or an object that cannot answer) then refuses the
 * deletion before it is written, not after it (docs/configuration.md).
 */
export async function expectThrottle(ns: ThrottleNamespace, userId: number, nowMs: number) {
  await objectFor(ns, accountKey(userId)).knows("", nowMs);
}

/**
 * A deleted user's keys, forgotten: its logins' counts and known addresses, which a later user of
 * the same username or e-mail must not inherit, and its account's. The deletion has committed by
 * then, so nothing is thrown: a key whose object fails (unreachable for a moment) is asked once
 * more, and those still not forgotten are answered, with the last error met.
 */
export async function forgetAccount(ns: ThrottleNamespace, user: { id: number; logins: string[] }) {
  let kept = [...new Set([accountKey(user.id), ...user.logins.map(loginKey)])];
  let fault: unknown;
  for (let round = 0; round < 2 && kept.length > 0; round++) {
    const tries = await Promise.allSettled(kept.map(async (key) => objectFor(ns, key).forget()));
    kept = kept.filter((_, i) => tries[i]?.status === "rejected");
    fault = tries.find((t) => t.status === "rejected")?.reason;
  }
  return { kept, fault };
}

type Held<R> = Extract<R, { allowed: true }>;

/**
 * One sign-in attempt: one call to the client address's object (reserved while the user is looked
 * up: it does not depend on the user), then one to the account's, which says whether either of its
 * logins signed in from the address (a login naming nobody asks an object that knows nothing, so
 * that every attempt makes the same calls), then one to the typed login's, which decides its
 * (login, address) pair and, from an address neither it nor the account knows, its ceiling. Only when
 * both the address and the login are reserved is the password checked; a refusal by the login, or a
 * fault before the check, gives the address its reservation back, so a locked login (or an outage)
 * does not use up its client's allowance. A good password is one more call to the address, the
 * login and the account, in parallel. One object per key keeps every key's calls serial and its
 * load on its own object, with no object every sign-in must pass through.
 */
export class SignInAttempt {
  private address: { name: string; object: ThrottleObject; held?: Held<Reservation> } | undefined;
  private keys: { object: ThrottleObject; held: Held<SignInReservation> | null }[] = [];

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
    const [found, reserved] = await Promise.allSettled([
      lookup,
      address.object.reserve("address", this.nowMs),
    ]);
    if (reserved.status === "rejected") throw reserved.reason;
    const reservation = reserved.value;
    const giveBack = async () => {
      if (reservation.allowed) await address.object.release("address", reservation.reservedAtMs);
    };
    // A fault before the password is checked (the user's look-up, another object) makes no attempt:
    // the address gets its count back, so retries through an outage lock nothing. A give-back that
    // fails leaves the count and changes no answer: the fault is answered.
    const unchecked = async (fault: unknown): Promise<never> => {
      await giveBack().catch(() => {});
      throw fault;
    };
    if (found.status === "rejected") return unchecked(found.reason);
    const user = found.value;
    if (!reservation.allowed) return { user, retryAfterS: reservation.retryAfterS };
    this.address = { ...address, held: reservation };
    const typed = objectFor(this.ns, loginKey(login));
    const account = objectFor(this.ns, user ? accountKey(user.id) : nobodyKey(login));
    const reserveLogin = async () => {
      const known = await account.knows(name, this.nowMs);
      return typed.reserveSignIn(name, this.nowMs, known);
    };
    const held = await reserveLogin().catch(unchecked);
    if (!held.allowed) {
      await giveBack();
      return { user, retryAfterS: held.retryAfterS };
    }
    this.keys.push({ object: typed, held });
    if (user) this.keys.push({ object: account, held: null });
    return { user };
  }

  /** A good password: the login's pair starts over, the address is known, reservations go back. */
  async succeeded() {
    const { address } = this;
    const held = address?.held;
    await Promise.all([
      ...this.keys.map((k) => address && k.object.signedIn(address.name, k.held, this.nowMs)),
      held && address.object.release("address", held.reservedAtMs),
    ]);
  }
}

// The login route's side of the throttle: which keys an attempt counts against, and the calls to
// their Durable Objects (login-throttle.ts).
import type { Reservation } from "./policy";

export type ThrottleNamespace = Env["LOGIN_THROTTLE"];

/** One object per key, named by the key's SHA-256: a login text can be 64 KiB long. */
async function objectFor(ns: ThrottleNamespace, key: string) {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)),
  );
  return ns.get(ns.idFromName(Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")));
}

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

type Held = Extract<Reservation, { allowed: true }>;

/** An operator's unlock: forgets the account's failures, lock and back-off. */
export const resetAccount = async (ns: ThrottleNamespace, userId: number, nowMs: number) =>
  (await objectFor(ns, accountKey(userId, ""))).reset(nowMs);

/**
 * One sign-in attempt against both keys. Each key costs one call to its object: the address is
 * reserved while the user is looked up (it does not depend on the user), the account right after
 * (it does). Only when both are reserved is the password checked; a refusal by the account gives
 * the address its reservation back, so a locked account does not use up its client's allowance.
 * One object per key (rather than one object taking both keys) keeps every key's calls serial and
 * every key's load on its own object, with no object that every sign-in must pass through.
 */
export class SignInAttempt {
  private address: ThrottleObject | undefined;
  private account: ThrottleObject | undefined;
  private addressHeld: Held | undefined;

  constructor(
    private readonly ns: ThrottleNamespace,
    private readonly clientAddress: string | undefined,
    private readonly nowMs: number,
  ) {}

  /** The user the login names, or how many seconds until either key may try again. */
  async admit<U extends { id: number }>(
    login: string,
    lookup: Promise<U | undefined>,
  ): Promise<{ user: U | undefined; retryAfterS?: number }> {
    const addressObject = (this.address = await objectFor(this.ns, addressKey(this.clientAddress)));
    const [user, address] = await Promise.all([
      lookup,
      addressObject.reserve("address", this.nowMs),
    ]);
    if (!address.allowed) return { user, retryAfterS: address.retryAfterS };
    this.addressHeld = address;
    this.account = await objectFor(this.ns, accountKey(user?.id, login));
    const account = await this.account.reserve("account", this.nowMs);
    if (account.allowed) return { user };
    await addressObject.release("address", address.reservedAtMs, address.lockedNow);
    return { user, retryAfterS: account.retryAfterS };
  }

  /** A good password: the account starts over and the address gets its reservation back. */
  async succeeded() {
    const held = this.addressHeld;
    await Promise.all([
      this.account?.reset(this.nowMs),
      held && this.address?.release("address", held.reservedAtMs, held.lockedNow),
    ]);
  }
}

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/auth/sha256";
import {
  isKnown,
  KNOWN_ADDRESS_MS,
  KNOWN_ADDRESSES_MAX,
  rememberAddress,
  reserveSignIn,
  signInSucceeded,
} from "../src/throttle/account-policy";
import { inboxKey, reserveMail } from "../src/throttle/mail";
import {
  BACKOFF_MEMORY_MS,
  EMPTY_STATE,
  forgetAtMs,
  HELD_MS,
  lockDurationMs,
  POLICIES,
  release,
  reserve,
  type ThrottleState,
} from "../src/throttle/policy";
import {
  accountKey,
  addressKey,
  loginKey,
  objectFor,
  SignInAttempt,
} from "../src/throttle/sign-in";
import { unique } from "./helpers";

const { pair, account, address } = POLICIES;
const T0 = Date.UTC(2026, 0, 1);

/**
 * The most failures one client address can add to one account in any window of `pair.windowMs`:
 * it may fail `limit` times, wait out the lock, fail `limit` times more, and so on, each lock twice
 * the last (10 at 0 s, 60 s, 180 s and 420 s; the fifth round falls at 900 s, outside the window).
 * The address's own limit (100) is higher, so it changes nothing. The ceiling is set above this.
 */
function mostFromOneAddress(pair = POLICIES.pair, address = POLICIES.address) {
  let failures = 0;
  let atMs = 0;
  for (let locks = 0; atMs < pair.windowMs; locks++) {
    failures += pair.limit;
    atMs += lockDurationMs(pair, locks);
  }
  return Math.min(failures, address.limit);
}

/** `n` reservations at `atMs`, returning the last state and every reservation. */
function reserveTimes(n: number, state: ThrottleState, policy = pair, atMs = T0) {
  const reservations = [];
  for (let i = 0; i < n; i++) {
    const result = reserve(state, policy, atMs);
    state = result.state;
    reservations.push(result.reservation);
  }
  return { state, reservations };
}

describe("throttle policy", () => {
  it("locks a pair and an account's ceiling for 60 s, doubling per lock up to an hour; an address for 15 minutes", () => {
    for (const policy of [pair, account])
      expect(
        [0, 1, 2, 3, 4, 5, 6, 7, 40].map((locks) => lockDurationMs(policy, locks) / 1000),
      ).toEqual([60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]);
    expect([0, 1, 5].map((locks) => lockDurationMs(address, locks) / 1000)).toEqual([
      900, 900, 900,
    ]);
  });

  it("lets the 10th reservation through and starts the lock with it; the 11th is refused", () => {
    const { state, reservations } = reserveTimes(11, EMPTY_STATE);
    expect(reservations.slice(0, 10)).toEqual(Array(10).fill({ allowed: true, reservedAtMs: T0 }));
    // At once the 10 may yet be given back; once they are settled, the lock's end.
    expect(reservations[10]).toEqual({ allowed: false, retryAfterS: 1 });
    expect(reserve(state, pair, T0 + HELD_MS).reservation).toEqual({
      allowed: false,
      retryAfterS: 60,
    });
    expect(state.lockedUntilMs).toBe(T0 + 60_000);
  });

  it("refuses for a second only while the counts it stands on may still be given back", () => {
    const settled = reserveTimes(9, EMPTY_STATE, pair, T0 - 60_000).state;
    const locked = reserve(settled, pair, T0).state; // the 10th, its request not yet answered
    expect(reserve(locked, pair, T0 + HELD_MS - 1).reservation).toEqual({
      allowed: false,
      retryAfterS: 1,
    });
    expect(reserve(locked, pair, T0 + HELD_MS).reservation).toEqual({
      allowed: false,
      retryAfterS: 60,
    });
    // Counts never given back (one client's mails to one address) refuse for their hour at once.
    const mails = reserveTimes(6, EMPTY_STATE, POLICIES.mail).reservations;
    expect(mails[5]).toEqual({ allowed: false, retryAfterS: 3600 });
    // Past a lowered limit: the settled counts alone refuse, whatever the young ones; or not.
    const client = POLICIES.client;
    const old = reserveTimes(3, EMPTY_STATE, client, T0 - 60_000).state;
    const young = reserveTimes(2, old, client, T0).state;
    expect(reserve(young, { ...client, limit: 3 }, T0).reservation).toEqual({
      allowed: false,
      retryAfterS: 3540,
    });
    expect(reserve(young, { ...client, limit: 4 }, T0).reservation).toEqual({
      allowed: false,
      retryAfterS: 1,
    });
  });

  it("rounds Retry-After up to whole seconds", () => {
    const { state } = reserveTimes(10, EMPTY_STATE);
    expect(reserve(state, pair, T0 + 59_001).reservation).toEqual({
      allowed: false,
      retryAfterS: 1,
    });
  });

  it("counts a failure for its window and not a millisecond more", () => {
    const { state } = reserveTimes(pair.limit - 1, EMPTY_STATE);
    // A millisecond before the window ends the 9 still count, so a 10th starts the lock.
    expect(reserve(state, pair, T0 + pair.windowMs - 1).state.lockedUntilMs).toBeGreaterThan(0);
    const atEnd = T0 + pair.windowMs;
    expect(reserve(state, pair, atEnd).state).toEqual({
      failuresMs: [atEnd],
      lockedUntilMs: 0,
      locks: 0,
      lastAttemptMs: atEnd,
    });
  });

  it("a count given back below the limit lifts the lock and its back-off step, whichever reservation started it", () => {
    const first = reserve(EMPTY_STATE, address, T0 - 1_000).state;
    const locked = reserveTimes(99, first, address).state;
    expect(locked).toMatchObject({ lockedUntilMs: T0 + address.lockMs, locks: 1 });
    const released = release(locked, address, T0 - 1_000);
    expect(released).toMatchObject({ lockedUntilMs: 0, locks: 0 });
    expect(released.failuresMs).toHaveLength(99);
    expect(release(released, address, T0 - 1)).toBe(released); // nothing of that time: unchanged
    // The 100th is counted again, and starts the lock again.
    const again = reserve(released, address, T0 + 1_000);
    expect(again.reservation).toEqual({ allowed: true, reservedAtMs: T0 + 1_000 });
    expect(reserve(again.state, address, T0 + 1_000 + HELD_MS).reservation).toEqual({
      allowed: false,
      retryAfterS: address.lockMs / 1000,
    });
  });

  it("a lock started at one limit is lifted by a higher one, until the count reaches it", () => {
    const mail = POLICIES.client;
    const locked = reserveTimes(3, EMPTY_STATE, { ...mail, limit: 3 }).state;
    expect(reserve(locked, { ...mail, limit: 3 }, T0 + 1).reservation.allowed).toBe(false);
    const raised = reserveTimes(3, locked, { ...mail, limit: 5 }, T0 + 1);
    expect(raised.reservations.map((r) => r.allowed)).toEqual([true, true, false]);
    expect(raised.state).toMatchObject({ lockedUntilMs: T0 + 1 + mail.lockMs, locks: 1 });
  });

  it("forgets the back-off after a day without attempts", () => {
    const { state } = reserveTimes(10, EMPTY_STATE);
    const later = reserveTimes(10, state, pair, T0 + 60_000).state;
    expect(later.lockedUntilMs).toBe(T0 + 60_000 + 120_000);
    const dayLater = reserveTimes(10, later, pair, T0 + 60_000 + BACKOFF_MEMORY_MS).state;
    expect(dayLater.lockedUntilMs - (T0 + 60_000 + BACKOFF_MEMORY_MS)).toBe(60_000);
  });

  it("may forget a state once its window, lock and back-off have all passed", () => {
    const { state } = reserveTimes(3, EMPTY_STATE);
    expect(forgetAtMs(state, pair)).toBe(T0 + 15 * 60_000);
    const locked = reserveTimes(7, state).state;
    expect(forgetAtMs(locked, pair)).toBe(T0 + BACKOFF_MEMORY_MS);
  });
});

describe("one account from many addresses", () => {
  const view = (over: Partial<Parameters<typeof reserveSignIn>[0]> = {}) => ({
    pair: EMPTY_STATE,
    ceiling: EMPTY_STATE,
    known: false,
    ...over,
  });

  it("one address adds at most 40 failures to an account in 15 minutes; the ceiling is above that", () => {
    expect(mostFromOneAddress()).toBe(40);
    // Played out: fail until refused, wait for the lock to end, again, for 15 minutes.
    let state = EMPTY_STATE;
    let counted = 0;
    for (let atMs = T0; atMs < T0 + pair.windowMs; ) {
      const result = reserve(state, pair, atMs);
      state = result.state;
      if (result.reservation.allowed) counted++;
      else atMs = state.lockedUntilMs;
    }
    expect(counted).toBe(40);
    expect(account.limit).toBeGreaterThan(mostFromOneAddress());
    expect(mostFromOneAddress(pair, { ...address, limit: 25 })).toBe(25);
  });

  it("counts an attempt from an unknown address against its pair and the ceiling, from a known one against its pair only", () => {
    const unknown = reserveSignIn(view(), T0);
    expect(unknown.reservation).toEqual({
      allowed: true,
      reservedAtMs: T0,
      ceilingCounted: true,
    });
    expect([unknown.pair.failuresMs, unknown.ceiling.failuresMs]).toEqual([[T0], [T0]]);
    const known = reserveSignIn(view({ known: true }), T0);
    expect(known.reservation).toEqual({ allowed: true, reservedAtMs: T0, ceilingCounted: false });
    expect([known.pair.failuresMs, known.ceiling]).toEqual([[T0], EMPTY_STATE]);
  });

  it("a locked pair refuses its address alone; a locked ceiling refuses unknown addresses only", () => {
    const lockedPair = reserveTimes(10, EMPTY_STATE).state;
    const lockedCeiling = reserveTimes(50, EMPTY_STATE, account).state;
    const settled = T0 + HELD_MS;
    expect(reserveSignIn(view({ pair: lockedPair, known: true }), settled).reservation).toEqual({
      allowed: false,
      retryAfterS: 60,
    });
    expect(reserveSignIn(view({ ceiling: lockedCeiling }), settled).reservation).toEqual({
      allowed: false,
      retryAfterS: 60,
    });
    const spared = reserveSignIn(view({ ceiling: lockedCeiling, known: true }), T0);
    expect(spared.reservation.allowed).toBe(true);
    expect(spared.ceiling).toBe(lockedCeiling);
  });

  it("refuses with the later of two locks and counts a refused attempt nowhere", () => {
    const lockedPair = reserveTimes(10, EMPTY_STATE).state;
    const longCeiling = {
      ...reserveTimes(50, EMPTY_STATE, account).state,
      lockedUntilMs: T0 + 240_000,
    };
    const refused = reserveSignIn(view({ pair: lockedPair, ceiling: longCeiling }), T0 + 1_000);
    expect(refused.reservation).toEqual({ allowed: false, retryAfterS: 239 });
    expect([refused.pair, refused.ceiling]).toEqual([lockedPair, longCeiling]);
    const freePair = reserveSignIn(view({ ceiling: longCeiling }), T0 + 1_000);
    expect(freePair.pair).toEqual(EMPTY_STATE);
  });

  it("the attempt that reaches the ceiling is let through and starts its lock; its success lifts it", () => {
    const nearly = reserveTimes(49, EMPTY_STATE, account).state;
    const fiftieth = reserveSignIn(view({ ceiling: nearly }), T0);
    expect(fiftieth.reservation).toEqual({
      allowed: true,
      reservedAtMs: T0,
      ceilingCounted: true,
    });
    expect(fiftieth.ceiling.lockedUntilMs).toBe(T0 + 60_000);
    if (!fiftieth.reservation.allowed) throw new Error("unreachable");
    const after = signInSucceeded(fiftieth.ceiling, [], "a", fiftieth.reservation, T0);
    expect(after.ceiling).toMatchObject({ lockedUntilMs: 0, locks: 0 });
    expect(after.ceiling.failuresMs).toHaveLength(49);
    expect(after.known).toEqual([{ address: "a", lastSuccessMs: T0 }]);
  });

  it("a success from a known address leaves the ceiling as it was", () => {
    const ceiling = reserveTimes(30, EMPTY_STATE, account).state;
    const held = { allowed: true as const, reservedAtMs: T0, ceilingCounted: false };
    expect(signInSucceeded(ceiling, [], "a", held, T0).ceiling).toBe(ceiling);
  });
});

describe("known addresses", () => {
  it("are known for 30 days after the last good sign-in there", () => {
    const known = rememberAddress([], "a", T0);
    expect(isKnown(known, "a", T0 + KNOWN_ADDRESS_MS - 1)).toBe(true);
    expect(isKnown(known, "a", T0 + KNOWN_ADDRESS_MS)).toBe(false);
    expect(isKnown(known, "b", T0)).toBe(false);
  });

  it("keep the 16 most recent, newest first, each once, the expired ones dropped", () => {
    let known = rememberAddress([], "old", T0 - KNOWN_ADDRESS_MS);
    for (let i = 0; i < 20; i++) known = rememberAddress(known, `a${i}`, T0 + i);
    known = rememberAddress(known, "a10", T0 + 100);
    expect(known).toHaveLength(KNOWN_ADDRESSES_MAX);
    expect(known[0]).toEqual({ address: "a10", lastSuccessMs: T0 + 100 });
    expect(known.map((k) => k.address).filter((a) => a === "a10")).toHaveLength(1);
    expect(known.map((k) => k.address)).not.toContain("old");
    expect(known.map((k) => k.address)).not.toContain("a3"); // the oldest fell off
    expect(known.at(-1)?.address).toBe("a4");
  });
});

/** The throttle namespace, recording each call made to its objects. */
function recorded(failing: string[] = []) {
  const calls: string[] = [];
  const ns = env.LOGIN_THROTTLE;
  const wrapped = {
    idFromName: (name: string) => ns.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = ns.get(id);
      return new Proxy(stub, {
        get(target, property) {
          if (typeof property !== "string" || property === "then") return undefined;
          // An RPC stub answers every name with a method: each call is recorded, then made.
          return (...args: unknown[]) => {
            calls.push(property);
            // A method named in `failing` fails as an object out of reach does.
            if (failing.includes(property))
              return Promise.reject(new Error("Network connection lost."));
            return (target as unknown as Record<string, (...a: unknown[]) => unknown>)[property]!(
              ...args,
            );
          };
        },
      });
    },
  } as unknown as typeof ns;
  return { calls, ns: wrapped };
}

describe("one sign-in attempt's calls", () => {
  it("makes the same calls whether or not a user has the login", async () => {
    const now = Date.now();
    const answers = [];
    for (const user of [undefined, { id: 9_000_001 }]) {
      const { calls, ns } = recorded();
      const attempt = new SignInAttempt(ns, `198.18.${user ? 1 : 2}.1`, now);
      const admitted = await attempt.admit(unique("login"), Promise.resolve(user));
      answers.push({ calls, allowed: admitted.retryAfterS === undefined });
    }
    expect(answers[0]).toEqual({ calls: ["reserve", "knows", "reserveSignIn"], allowed: true });
    expect(answers[1]).toEqual(answers[0]);
  });

  it("makes the same calls whether or not a user has the login, when the login refuses", async () => {
    const now = Date.now();
    const answers = [];
    for (const user of [undefined, { id: 9_000_002 }]) {
      const [login, ip] = [unique("locked"), `198.18.${user ? 3 : 4}.1`];
      const typed = await objectFor(env.LOGIN_THROTTLE, loginKey(login));
      for (let i = 0; i < 10; i++)
        await typed.reserveSignIn(sha256Hex(addressKey(ip)), now - HELD_MS);
      const { calls, ns } = recorded();
      const admitted = await new SignInAttempt(ns, ip, now).admit(login, Promise.resolve(user));
      answers.push({ calls, retryAfterS: admitted.retryAfterS });
    }
    expect(answers[0]).toEqual({
      calls: ["reserve", "knows", "reserveSignIn", "release"],
      retryAfterS: 60,
    });
    expect(answers[1]).toEqual(answers[0]);
  });
});

describe("one mail request's calls", () => {
  const ip = "198.18.6.1";
  const callsOf = async (email: string, perClient: number, from = ip) => {
    const { calls, ns } = recorded();
    const reservation = await reserveMail(ns, email, from, perClient, Date.now());
    return { calls, allowed: reservation.allowed };
  };

  it("the client's share, then the address's two in one call; a refusal by the address gives the client's back", async () => {
    const email = `${unique("calls")}@example.test`;
    expect(await callsOf(email, 100)).toEqual({
      calls: ["reserve", "reserveInbox"],
      allowed: true,
    });
    for (let i = 0; i < 4; i++) await callsOf(email, 100);
    // This client's share of the address is spent; then every client's.
    const refused = { calls: ["reserve", "reserveInbox", "release"], allowed: false };
    expect(await callsOf(email, 100)).toEqual(refused);
    const inbox = `${unique("calls")}@example.test`;
    for (let client = 0; client < 6; client++)
      for (let i = 0; i < 5; i++) await callsOf(inbox, 0, `198.18.7.${client}`);
    expect(await callsOf(inbox, 100)).toEqual(refused);
    // Without a limit per client, its object is not asked; past it, the address's is not.
    expect(await callsOf(`${unique("calls")}@example.test`, 0)).toEqual({
      calls: ["reserveInbox"],
      allowed: true,
    });
    expect(await callsOf(`${unique("calls")}@example.test`, 2)).toEqual({
      calls: ["reserve"],
      allowed: false,
    });
  });
});

describe("a count given back", () => {
  it("concurrent sign-ins: an address gets exactly its limit, though a locked login gives its count back after another attempt reached it", async () => {
    const now = Date.now();
    const ip = "198.18.5.1";
    const name = sha256Hex(addressKey(ip));
    const locked = unique("locked");
    const typed = await objectFor(env.LOGIN_THROTTLE, loginKey(locked));
    for (let i = 0; i < pair.limit; i++) await typed.reserveSignIn(name, now - HELD_MS);
    const object = await objectFor(env.LOGIN_THROTTLE, addressKey(ip));
    for (let i = 0; i < address.limit - 2; i++) await object.reserve("address", now);
    const admit = (login: string) =>
      new SignInAttempt(env.LOGIN_THROTTLE, ip, now).admit(login, Promise.resolve(undefined));
    // The locked login's attempt takes the address's 99th and gives it back once its login
    // refuses it; the others reach the 100th meanwhile (the object takes calls in their order).
    const [refused, ...others] = await Promise.all([
      admit(locked),
      ...Array.from({ length: 3 }, () => admit(unique("login"))),
    ]);
    expect(refused.retryAfterS).toBe(60);
    let admitted = others.filter((a) => a.retryAfterS === undefined).length;
    while ((await admit(unique("login"))).retryAfterS === undefined) admitted++;
    expect(admitted).toBe(2);
  });

  it("a mail whose address cannot be asked gives the client's count back, and fails", async () => {
    const ip = "198.18.9.1";
    const { calls, ns } = recorded(["reserveInbox"]);
    const mail = reserveMail(ns, `${unique("lost")}@example.test`, ip, 1, Date.now());
    await expect(mail).rejects.toThrow("Network connection lost.");
    expect(calls).toEqual(["reserve", "reserveInbox", "release"]);
    // The client's one mail of the hour is still there.
    const next = reserveMail(
      env.LOGIN_THROTTLE,
      `${unique("lost")}@example.test`,
      ip,
      1,
      Date.now(),
    );
    expect(await next).toMatchObject({ allowed: true });
  });

  it("a mail the address refuses stays refused when the client's count cannot be given back", async () => {
    const ip = "198.18.9.2";
    const email = `${unique("full")}@example.test`;
    for (let i = 0; i < 5; i++) await reserveMail(env.LOGIN_THROTTLE, email, ip, 0, Date.now());
    const { calls, ns } = recorded(["release"]);
    const refused = await reserveMail(ns, email, ip, 100, Date.now());
    expect(refused).toMatchObject({ allowed: false, spent: "address" });
    expect(calls).toEqual(["reserve", "reserveInbox", "release"]);
  });

  it("a mail refused while another request holds the client's last count waits for that count, not the hour", async () => {
    const now = Date.now();
    const ip = "198.18.8.1";
    const client = await objectFor(env.LOGIN_THROTTLE, `mails from ${addressKey(ip)}`);
    const mail = () =>
      reserveMail(env.LOGIN_THROTTLE, `${unique("held")}@example.test`, ip, 2, now);
    expect(await mail()).toMatchObject({ allowed: true });
    // Request A holds the client's 2nd and last count, as reserveMail does while it asks the address.
    const held = await client.reserve("client", now, 2);
    if (!held.allowed) throw new Error("refused");
    const refused = await mail();
    expect(refused).toEqual({ allowed: false, retryAfterS: 1, spent: "client" });
    // A's address refuses it, so A gives the count back: B's retry is served, and is the last.
    await client.release("client", held.reservedAtMs, 2);
    expect(await mail()).toMatchObject({ allowed: true });
    expect(await mail()).toEqual({ allowed: false, retryAfterS: 1, spent: "client" });
    // Once no count can come back, the refusal waits for the hour: settled counts keep theirs.
    const later = now + HELD_MS;
    expect(await reserveMail(env.LOGIN_THROTTLE, "x@example.test", ip, 2, later)).toEqual({
      allowed: false,
      retryAfterS: 3600,
      spent: "client",
    });
  });

  it("a sign-in refused while another attempt holds its address's last count waits for that attempt, not the lock", async () => {
    const now = Date.now();
    const ip = "198.18.8.2";
    const object = await objectFor(env.LOGIN_THROTTLE, addressKey(ip));
    for (let i = 0; i < address.limit - 1; i++) await object.reserve("address", now - 60_000);
    const attempt = () => new SignInAttempt(env.LOGIN_THROTTLE, ip, now);
    const admit = (a: SignInAttempt) => a.admit(unique("login"), Promise.resolve(undefined));
    // A holds the address's 100th count while its password is checked; B is refused meanwhile.
    const a = attempt();
    expect(await admit(a)).toEqual({ user: undefined });
    expect(await admit(attempt())).toEqual({ user: undefined, retryAfterS: 1 });
    // A's password was right: its count goes back, and B's retry is counted in its place.
    await a.succeeded();
    expect(await admit(attempt())).toEqual({ user: undefined });
    // A failure holds nothing back: a refusal once it is settled waits out the 15-minute lock.
    const settled = new SignInAttempt(env.LOGIN_THROTTLE, ip, now + HELD_MS);
    expect(await admit(settled)).toEqual({ user: undefined, retryAfterS: 900 });
  });
});

describe("throttle keys", () => {
  it("names a user by id and a login by its lower-cased text", () => {
    expect(accountKey(42)).toBe("account:user:42");
    expect(loginKey("Alice@Example.TEST")).toBe(loginKey("alice@example.test"));
    expect(loginKey("alice@example.test")).not.toBe(loginKey("alice"));
    // Letters A-Z alone, as the database's lower() folds them: two users' logins, two keys.
    expect(loginKey("\u00c9mile")).not.toBe(loginKey("\u00e9mile"));
    expect(loginKey("\u212aelvin")).not.toBe(loginKey("kelvin"));
    expect(inboxKey(" Ada@Example.TEST ")).toBe(inboxKey("ada@example.test"));
    expect(inboxKey("\u00c9mile@example.test")).not.toBe(inboxKey("\u00e9mile@example.test"));
  });

  it("names an IPv4 client by its address and an IPv6 client by its /64", () => {
    expect(addressKey("203.0.113.9")).toBe("address:203.0.113.9");
    expect(addressKey("::ffff:203.0.113.9")).toBe("address:203.0.113.9");
    expect(addressKey(undefined)).toBe("address:unknown");
    const v6 = [
      "2001:db8:0:1::1",
      "2001:0db8:0000:0001:ffff:ffff:ffff:ffff",
      "2001:DB8:0:1:0:0:0:2",
    ].map(addressKey);
    expect(new Set(v6)).toEqual(new Set(["address:2001:db8:0:1::/64"]));
    expect(addressKey("2001:db8:0:2::1")).not.toBe(v6[0]);
    expect(addressKey("::1")).toBe("address:0:0:0:0::/64");
    expect(addressKey("not:an::address::")).toBe("address:not:an::address::");
  });
});

describe("LoginThrottle Durable Object", () => {
  const objectNamed = (name: string) => env.LOGIN_THROTTLE.get(env.LOGIN_THROTTLE.idFromName(name));
  const tables = (stub: ReturnType<typeof objectNamed>) =>
    runInDurableObject(
      stub,
      (_, state) =>
        state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'throttle'").toArray()
          .length,
    );

  it("keeps a state while it matters, and its alarm forgets it afterwards", async () => {
    const current = objectNamed(unique("current"));
    await current.reserve("address", Date.now());
    await runDurableObjectAlarm(current);
    expect(await tables(current)).toBe(1);
    expect(await current.reserve("address", Date.now())).toMatchObject({ allowed: true });

    const stale = objectNamed(unique("stale"));
    await stale.reserve("address", Date.now() - 2 * BACKOFF_MEMORY_MS);
    await runDurableObjectAlarm(stale); // may have run already: its time was in the past
    expect(await tables(stale)).toBe(0);
  });

  // Cloudflare runs an alarm at least once: it may run again after it ran. Each run here comes
  // before the alarm's time, as a repeat would.
  it("forgets no count that still locks, nor a lock's back-off, however often its alarm runs", async () => {
    const stub = objectNamed(unique("alarmed"));
    const alarmRuns = async () => {
      const ran: boolean[] = [];
      for (let i = 0; i < 3; i++) ran.push(await runDurableObjectAlarm(stub));
      return ran;
    };
    const now = Date.now();
    // A pair locked two minutes ago for 60 s: its lock is over, its back-off level is not.
    const before = now - 2 * 60_000;
    for (let i = 0; i < 10; i++)
      expect(await stub.reserveSignIn("stranger", before)).toMatchObject({ allowed: true });
    expect(await stub.reserveSignIn("stranger", before)).toMatchObject({ allowed: false });
    expect(await alarmRuns()).toEqual([true, true, true]);
    // The next lock doubles: 120 s; the alarm's runs keep it.
    for (let i = 0; i < 10; i++)
      expect(await stub.reserveSignIn("stranger", now)).toMatchObject({ allowed: true });
    expect(await alarmRuns()).toEqual([true, true, true]);
    expect(await stub.reserveSignIn("stranger", now + 5_000)).toEqual({
      allowed: false,
      retryAfterS: 115,
    });
    const alarm = await runInDurableObject(stub, (_, state) => state.storage.getAlarm());
    expect(alarm).toBe(now + BACKOFF_MEMORY_MS);
  });

  it("forgets at once an object a success left with nothing to keep, with no alarm left", async () => {
    const stub = objectNamed(unique("released"));
    const left = await runInDurableObject(stub, async (object, state) => {
      const now = Date.now();
      const held = await object.reserve("address", now);
      if (!held.allowed) throw new Error("refused");
      await object.release("address", now);
      const rows = state.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE name = 'throttle'")
        .toArray().length;
      return { rows, alarm: await state.storage.getAlarm() };
    });
    expect(left).toEqual({ rows: 0, alarm: null });
  });

  it("keeps no storage for a give-back that finds its count forgotten", async () => {
    const stub = objectNamed(unique("forgotten"));
    // Reserved at a time long over: the object forgets it at once, with no alarm left.
    const longAgo = Date.now() - 2 * BACKOFF_MEMORY_MS;
    expect(await stub.reserve("address", longAgo)).toMatchObject({ allowed: true });
    expect(await tables(stub)).toBe(0);
    await stub.release("address", longAgo);
    expect(await tables(stub)).toBe(0);
  });

  it("an account keeps its known addresses past its failures, and forgets stale pairs", async () => {
    const stub = objectNamed(unique("account"));
    const now = Date.now();
    const held = await stub.reserveSignIn("home", now);
    if (!held.allowed) throw new Error("refused");
    await stub.signedIn("home", held, now);
    await stub.reserveSignIn("stranger", now - 2 * BACKOFF_MEMORY_MS);
    await runDurableObjectAlarm(stub);
    const rows = await runInDurableObject(stub, (_, state) => ({
      pairs: state.storage.sql.exec("SELECT address FROM pairs").toArray(),
      known: state.storage.sql.exec("SELECT address FROM known").toArray(),
    }));
    expect(rows).toEqual({ pairs: [], known: [{ address: "home" }] });
  });

  it("says which addresses signed in, without keeping storage for an object nobody signed in to", async () => {
    const fresh = objectNamed(unique("fresh"));
    expect(await fresh.knows("home", Date.now())).toBe(false);
    expect(await tables(fresh)).toBe(0);
    const account = objectNamed(unique("account"));
    const now = Date.now();
    await account.signedIn("home", null, now);
    expect(await account.knows("home", now)).toBe(true);
    expect(await account.knows("elsewhere", now)).toBe(false);
    expect(await account.knows("home", now + KNOWN_ADDRESS_MS)).toBe(false);
  });

  it("spares an address known elsewhere the ceiling, never the pair", async () => {
    const stub = objectNamed(unique("login"));
    const now = Date.now();
    for (let a = 0; a < 5; a++)
      for (let i = 0; i < 10; i++) await stub.reserveSignIn(`stranger-${a}`, now);
    expect(await stub.reserveSignIn("home", now)).toMatchObject({ allowed: false });
    const spared = await stub.reserveSignIn("home", now, true);
    expect(spared).toMatchObject({ allowed: true, ceilingCounted: false });
  });

  it("keeps a client's share of an address for its hour, past a sign-in pair's 15 minutes", async () => {
    const stub = objectNamed(inboxKey(`${unique("kept")}@example.test`));
    const now = Date.now();
    for (let i = 0; i < 4; i++) await stub.reserveInbox("client", now - 20 * 60_000);
    expect(await stub.reserveInbox("client", now)).toMatchObject({ allowed: true });
    expect(await stub.reserveInbox("client", now)).toEqual({ allowed: false, retryAfterS: 3600 });
    expect(await stub.reserveInbox("another", now)).toMatchObject({ allowed: true });
  });

  it("unlock forgets every pair and the ceiling, says whether any was locked, and keeps known addresses", async () => {
    const stub = objectNamed(unique("unlock"));
    const now = Date.now();
    const home = await stub.reserveSignIn("home", now);
    if (!home.allowed) throw new Error("refused");
    await stub.signedIn("home", home, now);
    for (let i = 0; i < 10; i++) await stub.reserveSignIn("a", now);
    for (let i = 0; i < 3; i++) await stub.reserveSignIn("b", now);
    expect(await stub.reserveSignIn("a", now + HELD_MS)).toEqual({
      allowed: false,
      retryAfterS: 60,
    });
    expect(await stub.unlock(now)).toEqual({ failures: 13, locked: true });
    expect(await stub.reserveSignIn("a", now)).toMatchObject({ allowed: true });
    const known = await runInDurableObject(stub, (_, state) =>
      state.storage.sql.exec("SELECT address FROM known").toArray(),
    );
    expect(known).toEqual([{ address: "home" }]);
  });
});

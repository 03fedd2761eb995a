import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  BACKOFF_MEMORY_MS,
  EMPTY_STATE,
  forgetAtMs,
  lockDurationMs,
  POLICIES,
  release,
  reserve,
  type ThrottleState,
} from "../src/throttle/policy";
import { accountKey, addressKey } from "../src/throttle/sign-in";
import { unique } from "./helpers";

const { account, address } = POLICIES;
const T0 = Date.UTC(2026, 0, 1);

/** `n` reservations at `atMs`, returning the last state and every reservation. */
function reserveTimes(n: number, state: ThrottleState, policy = account, atMs = T0) {
  const reservations = [];
  for (let i = 0; i < n; i++) {
    const result = reserve(state, policy, atMs);
    state = result.state;
    reservations.push(result.reservation);
  }
  return { state, reservations };
}

describe("throttle policy", () => {
  it("locks an account for 60 s, doubling per lock up to an hour; an address for 15 minutes", () => {
    expect(
      [0, 1, 2, 3, 4, 5, 6, 7, 40].map((locks) => lockDurationMs(account, locks) / 1000),
    ).toEqual([60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]);
    expect([0, 1, 5].map((locks) => lockDurationMs(address, locks) / 1000)).toEqual([
      900, 900, 900,
    ]);
  });

  it("lets the 10th reservation through and starts the lock with it; the 11th is refused", () => {
    const { state, reservations } = reserveTimes(11, EMPTY_STATE);
    expect(reservations.slice(0, 9).every((r) => r.allowed && !r.lockedNow)).toBe(true);
    expect(reservations[9]).toEqual({ allowed: true, reservedAtMs: T0, lockedNow: true });
    expect(reservations[10]).toEqual({ allowed: false, retryAfterS: 60 });
    expect(state.lockedUntilMs).toBe(T0 + 60_000);
  });

  it("rounds Retry-After up to whole seconds", () => {
    const { state } = reserveTimes(10, EMPTY_STATE);
    expect(reserve(state, account, T0 + 59_001).reservation).toEqual({
      allowed: false,
      retryAfterS: 1,
    });
  });

  it("releasing the reservation that started a lock lifts it and its back-off step", () => {
    const { state } = reserveTimes(10, EMPTY_STATE, address);
    const released = release(reserveTimes(90, state, address).state, T0, true);
    expect(released).toMatchObject({ lockedUntilMs: 0, locks: 0 });
    expect(released.failuresMs).toHaveLength(99);
    expect(release(released, T0 - 1, false)).toBe(released); // nothing of that time: unchanged
  });

  it("forgets the back-off after a day without attempts", () => {
    const { state } = reserveTimes(10, EMPTY_STATE);
    const later = reserveTimes(10, state, account, T0 + 60_000).state;
    expect(later.lockedUntilMs).toBe(T0 + 60_000 + 120_000);
    const dayLater = reserveTimes(10, later, account, T0 + 60_000 + BACKOFF_MEMORY_MS).state;
    expect(dayLater.lockedUntilMs - (T0 + 60_000 + BACKOFF_MEMORY_MS)).toBe(60_000);
  });

  it("may forget a state once its window, lock and back-off have all passed", () => {
    const { state } = reserveTimes(3, EMPTY_STATE);
    expect(forgetAtMs(state, account)).toBe(T0 + 15 * 60_000);
    const locked = reserveTimes(7, state).state;
    expect(forgetAtMs(locked, account)).toBe(T0 + BACKOFF_MEMORY_MS);
  });
});

describe("throttle keys", () => {
  it("names an existing user by id and anything else by its lower-cased text", () => {
    expect(accountKey(42, "Alice@Example.test")).toBe("account:user:42");
    expect(accountKey(undefined, "Alice@Example.TEST")).toBe(
      accountKey(undefined, "alice@example.test"),
    );
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
    await current.reserve("account", Date.now());
    await runDurableObjectAlarm(current);
    expect(await tables(current)).toBe(1);
    expect(await current.reserve("account", Date.now())).toMatchObject({ allowed: true });

    const stale = objectNamed(unique("stale"));
    await stale.reserve("account", Date.now() - 2 * BACKOFF_MEMORY_MS);
    await runDurableObjectAlarm(stale); // may have run already: its time was in the past
    expect(await tables(stale)).toBe(0);
  });

  it("reset forgets everything and says whether the key was locked", async () => {
    const stub = objectNamed(unique("reset"));
    for (let i = 0; i < 10; i++) await stub.reserve("account", Date.now());
    expect(await stub.reset(Date.now())).toEqual({ failures: 10, locked: true });
    expect(await stub.reserve("account", Date.now())).toEqual({
      allowed: true,
      reservedAtMs: expect.any(Number),
      lockedNow: false,
    });
  });
});

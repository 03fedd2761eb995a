// A credential revoked while a request that uses it is between its D1 read and its answer: that
// request may still act (it read before the revocation), but what it read must not be remembered,
// or every later request of the isolate would act on a credential revoked before it was sent.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hashApiKey } from "../src/auth/api-keys";
import {
  call,
  INVALID_CREDENTIALS,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  signedToken,
  unique,
} from "./helpers";

/**
 * env.DB on which the first read of `table` runs, then waits until `release` before its caller
 * sees the rows: a request held just after it looked its credential up.
 */
function holdingFirstRead(table: "api_keys" | "sessions") {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const reachedRead = new Promise<void>((resolve) => (reached = resolve));
  let held = false;
  const hold = async <T>(read: Promise<T>) => {
    const rows = await read;
    reached();
    await released;
    return rows;
  };
  const holding = (stmt: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => holding(target.bind(...values));
        if (prop === "raw" || prop === "all" || prop === "first")
          return (...args: unknown[]) => {
            // biome-ignore lint/suspicious/noExplicitAny: the statement's own method, as called
            const read = (target as any)[prop](...args);
            if (held) return read;
            held = true;
            return hold(read);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const reads = new RegExp(`^select .* from "${table}"`, "i");
  const prepare = (db: D1Database | D1DatabaseSession) => (query: string) =>
    reads.test(query) ? holding(db.prepare(query)) : db.prepare(query);
  const bound = <T extends object>(target: T, name: string | symbol) => {
    const value: unknown = Reflect.get(target, name, target);
    return typeof value === "function" ? value.bind(target) : value;
  };
  const d1 = new Proxy(env.DB, {
    get: (target, name) =>
      name === "prepare"
        ? prepare(target)
        : name === "withSession"
          ? (start?: string) =>
              new Proxy(target.withSession(start), {
                get: (s, p) => (p === "prepare" ? prepare(s) : bound(s, p)),
              })
          : bound(target, name),
  });
  return { d1, reachedRead, release };
}

describe("a credential revoked while a request using it is in flight", () => {
  it("an API key: the isolate that revoked it refuses the next money write", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const { key, header } = await makeKey(admin, "write");
    const id = await env.DB.prepare("SELECT id FROM api_keys WHERE key_hash = ?")
      .bind(hashApiKey(key))
      .first<number>("id");
    const { d1, reachedRead, release } = holdingFirstRead("api_keys");
    const creditWith = (auth: string) =>
      call("POST", "/credits", {
        auth,
        d1,
        body: { user_id: user.id, wallet_id: wallet, amount: "1.00", request_id: unique("r") },
      });
    const inFlight = creditWith(header); // reads the key (live), then waits
    await reachedRead;
    const revoked = await call("DELETE", `/api-keys/${id}`, { auth: admin.bearer, d1 });
    expect(revoked.status).toBe(200);
    release();
    await inFlight; // read before the revocation: either answer is fair
    expect((await creditWith(header)).body).toEqual(INVALID_CREDENTIALS);
  });

  it("an access token: the isolate that signed it out refuses the next money write", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const { token } = await signedToken(admin);
    const auth = `Bearer ${token}`;
    const { d1, reachedRead, release } = holdingFirstRead("sessions");
    const creditWith = () =>
      call("POST", "/credits", {
        auth,
        d1,
        body: { user_id: user.id, wallet_id: wallet, amount: "1.00", request_id: unique("r") },
      });
    const inFlight = creditWith(); // reads the session (live), then waits
    await reachedRead;
    expect((await call("POST", "/users/logout", { auth, d1 })).status).toBe(200);
    release();
    await inFlight;
    expect((await creditWith()).body).toEqual(INVALID_CREDENTIALS);
  });
});

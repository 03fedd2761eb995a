// A credential made a moment ago (an API key, a sign-in's session) may not have reached the replica
// a read-only route reads: it is looked up again at the primary (db/client.ts orAtPrimary), so the
// client is not refused as "Invalid credentials" for replica lag.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, INVALID_CREDENTIALS, makeAdmin, makeKey } from "./helpers";

/** A statement that runs, but answers as a replica without the row would: nothing. */
function empty(stmt: D1PreparedStatement): D1PreparedStatement {
  return new Proxy(stmt, {
    get(target, prop) {
      if (prop === "bind") return (...values: unknown[]) => empty(target.bind(...values));
      if (prop === "raw") return async () => (await target.raw()).slice(0, 0);
      if (prop === "all") return async () => ({ ...(await target.all()), results: [] });
      if (prop === "first")
        return async () => {
          await target.first();
          return null;
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * env.DB whose sessions started anywhere but the primary read as a replica that has not caught up on
 * api_keys and sessions; the binding itself (no session: the primary) has every row.
 */
const laggingReplica = new Proxy(env.DB, {
  get(target, prop) {
    if (prop === "withSession")
      return (start?: string) => {
        const session = target.withSession(start);
        if (start === "first-primary") return session;
        return new Proxy(session, {
          get(s, p) {
            if (p === "prepare")
              return (query: string) =>
                /from "(api_keys|sessions)"/.test(query)
                  ? empty(s.prepare(query))
                  : s.prepare(query);
            const value = Reflect.get(s, p, s);
            return typeof value === "function" ? value.bind(s) : value;
          },
        });
      };
    const value = Reflect.get(target, prop, target);
    return typeof value === "function" ? value.bind(target) : value;
  },
});

describe("credentials on a read from a lagging replica", () => {
  it("accept an API key and an access token the replica has not seen yet, found at the primary", async () => {
    const admin = await makeAdmin();
    const { header } = await makeKey(admin, "read");
    for (const auth of [header, admin.bearer]) {
      const res = await call("GET", "/balances", { auth, d1: laggingReplica });
      expect(res.status, res.text).toBe(200);
    }
  });

  it("still refuse a key the primary does not have either", async () => {
    const admin = await makeAdmin();
    const { header } = await makeKey(admin, "read", { revoked: true });
    const res = await call("GET", "/balances", { auth: header, d1: laggingReplica });
    expect(res.status).toBe(401);
    expect(res.body).toStrictEqual(INVALID_CREDENTIALS);
  });
});

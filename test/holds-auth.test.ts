// The auth matrix (test/auth-matrix.ts) for the holds routes and GET /balances; GET /holds/{id}
// names its user by the hold, not by user_id, so its cases are in test/holds.test.ts.
import { type MatrixContext, type RouteSpec, runAuthMatrix } from "./auth-matrix";
import { call, credit, unique } from "./helpers";

/** Gives the subscriber 100 and places a hold of 10 on it; the hold's id. */
async function heldFor(c: MatrixContext) {
  const funded = await credit(c.admin, {
    user_id: c.subscriber.id,
    wallet_id: c.walletId,
    amount: 100,
  });
  if (funded.status !== 200) throw new Error(`credit failed: ${funded.text}`);
  const held = await call("POST", "/holds", {
    auth: c.admin.bearer,
    body: {
      user_id: c.subscriber.id,
      wallet_id: c.walletId,
      amount: 10,
      request_id: unique("hold"),
    },
  });
  if (held.status !== 200) throw new Error(`hold failed: ${held.text}`);
  return held.body.data.hold_id as number;
}

const routes: RouteSpec[] = [
  {
    method: "POST",
    path: "/holds",
    access: "admin-write",
    envelope: "A",
    request: async (c) => {
      await heldFor(c);
      return {
        body: {
          user_id: c.subscriber.id,
          wallet_id: c.walletId,
          amount: 1,
          request_id: unique("hold"),
        },
      };
    },
  },
  {
    method: "POST",
    path: "/holds/{id}/capture",
    access: "admin-write",
    envelope: "A",
    request: async (c) => ({ path: `/holds/${await heldFor(c)}/capture`, body: { amount: 4 } }),
  },
  {
    method: "POST",
    path: "/holds/{id}/void",
    access: "admin-write",
    envelope: "A",
    request: async (c) => ({ path: `/holds/${await heldFor(c)}/void` }),
  },
  {
    method: "GET",
    path: "/holds",
    access: "reader",
    envelope: "A",
    request: async (c) => {
      await heldFor(c);
      return { query: { user_id: c.subscriber.id } };
    },
  },
  {
    method: "GET",
    path: "/balances",
    access: "reader",
    envelope: "A",
    request: async (c) => {
      await heldFor(c);
      return { query: { user_id: c.subscriber.id } };
    },
  },
];

for (const route of routes) runAuthMatrix(route);

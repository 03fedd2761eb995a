// The three surfaces a write can come through (wallet/v1, the plugin's dialect, a console form) as
// senders on a D1 binding of the test's choosing, and the ledger's soundness after a race among
// them: shared by the files that race one object across surfaces.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { compatCall, ON } from "./compat-helpers";
import { type consoleOf, form, hidden, noticeLeft } from "./console-helpers";
import {
  type appAt,
  CLEAN,
  call,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeWallet,
  type TestUser,
} from "./helpers";

export const NS = "/wp-json/rimplenet/v1";

/** An answer of any surface: its status, and its JSON or the console's notice (`ok:…`, `error:…`). */
export type Sent = { status: number; text: string };

/** Who sends: the administrator, and its console session (read when a request is sent). */
type Sender = {
  admin: TestUser;
  con: ReturnType<typeof consoleOf>;
  cookie: string;
  csrf: string;
};

/** An administrator with a wallet of its own, signed in to the console `con`, and its form token. */
export async function signedInAdmin(con: ReturnType<typeof consoleOf>) {
  const admin = await makeAdmin();
  const wallet = await makeWallet(admin);
  const cookie = await con.signIn(admin);
  const csrf = hidden((await con.request("/", { cookie })).html, "_csrf");
  return { admin, wallet, cookie, csrf };
}

/**
 * POSTs through each surface as `who()`, each on the D1 binding it is handed; a console form as its
 * confirmation page's Confirm sends it (`step=confirm`), where a money form moves its money.
 */
export function senders(who: () => Sender) {
  const v1 =
    (path: string, body: Json, app?: ReturnType<typeof appAt>) =>
    async (d1: D1Database): Promise<Sent> => {
      const r = await call("POST", path, { auth: who().admin.bearer, d1, body, app });
      return { status: r.status, text: r.text };
    };
  const pl =
    (path: string, body: Json) =>
    async (d1: D1Database): Promise<Sent> => {
      const r = await compatCall("POST", `${NS}/${path}`, {
        headers: { Authorization: who().admin.bearer, "Content-Type": "application/json" },
        body: JSON.stringify(body),
        vars: { ...ON, DB: d1 } as never,
      });
      return { status: r.status, text: r.text };
    };
  const cs =
    (path: string, fields: Record<string, string | number>, con = who().con) =>
    async (d1: D1Database): Promise<Sent> => {
      const { cookie, csrf } = who();
      const r = await con.request(path, {
        method: "POST",
        cookie,
        vars: { DB: d1 },
        body: form({ _csrf: csrf, step: "confirm", ...fields }),
      });
      return { status: r.status, text: noticeLeft(r) };
    };
  return { v1, pl, cs };
}

export const rows = async (sql: string, ...bind: unknown[]) =>
  (
    await env.DB.prepare(sql)
      .bind(...bind)
      .all<Json>()
  ).results;

/**
 * For each of `userIds`: the ledger invariants over its balances and entries, exactly one
 * transaction.created event per entry, no balance below zero, and each hold's events exactly what
 * happened to it.
 */
export async function sound(userIds: number[]) {
  expect(await ledgerViolations(userIds)).toEqual(CLEAN);
  for (const u of userIds) {
    const es = await rows("SELECT id FROM transactions WHERE user_id = ?", u);
    const ev = await rows(
      `SELECT subject FROM events WHERE type = 'transaction.created' AND subject IN (${es.map(() => "?").join(",") || "''"})`,
      ...es.map((e) => String(e.id)),
    );
    expect(ev.length, `events of user ${u}`).toBe(es.length);
    const neg = await rows("SELECT * FROM balances WHERE user_id = ? AND balance_minor < 0", u);
    expect(neg).toEqual([]);
    // Each hold: one hold.placed, and one event of its resolution only once it is resolved.
    const hs = await rows("SELECT id, status FROM holds WHERE user_id = ?", u);
    for (const h of hs) {
      const types = await rows(
        "SELECT type FROM events WHERE type LIKE 'hold.%' AND subject = ? ORDER BY id",
        String(h.id),
      );
      const resolved = h.status === "held" ? [] : [`hold.${h.status}`];
      // The cron may not have recorded an expiry yet.
      if (h.status === "expired" && types.length === 1) resolved.pop();
      expect(types.map((t) => t.type)).toEqual(["hold.placed", ...resolved]);
    }
  }
}

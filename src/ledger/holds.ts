// The write path of holds (docs/ledger.md#holds): each change is one D1 batch whose guards (the
// triggers of drizzle/0012_holds.sql) judge it inside the statements that write it. A hold is placed
// within the available balance; it leaves 'held' once (captured, voided or expired), and a capture
// marks it and writes its DEBIT in the same batch, so however many captures race, one debits.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { counting, type Hold, holdAfter, ranOut } from "../db/holds";
import { selectList } from "../db/insert-select";
import { holds } from "../db/schema";
import {
  insertEntry,
  type KeyUse,
  keyFree,
  keyUse,
  type NewEntry,
  refusalOf,
  refusalOfWrite,
  usedUnder,
} from "./append";
import { requestKey } from "./request-key";

type NewHold = Omit<Hold, "id" | "requestKey" | "status" | "resolvedAtS" | "capturedMinor">;

/**
 * Places a hold unless its (user, request_id) is taken by an entry or a hold: one INSERT … SELECT,
 * skipped quietly on a used key (answered as a repeat), refused by the `holds_within_available`
 * trigger beyond the available balance (the batch rolls back: nothing written).
 */
export async function insertHold(
  db: Db,
  h: NewHold,
): Promise<{ created: true; hold: Hold } | ({ created: false } & KeyUse)> {
  const key = requestKey(h.requestId);
  // D1 binds JS numbers as REAL: the CASTs keep the guards' arithmetic in 64-bit integers.
  const values = selectList(holds, {
    id: null,
    userId: h.userId,
    walletId: h.walletId,
    amountMinor: sql`CAST(${h.amountMinor} AS INTEGER)`,
    amountText: h.amountText,
    requestId: h.requestId,
    requestKey: key,
    note: h.note,
    status: "held",
    createdAtS: sql`CAST(${h.createdAtS} AS INTEGER)`,
    expiresAtS: sql`CAST(${h.expiresAtS} AS INTEGER)`,
    resolvedAtS: null,
    capturedMinor: null,
  });
  const insert = db
    .insert(holds)
    .select(sql`SELECT ${values} WHERE ${keyFree(h.userId, key)}`)
    .onConflictDoNothing()
    .returning();
  try {
    const [rows, used] = await db.batch([insert, usedUnder(db, h.userId, h.requestId)]);
    return rows[0] ? { created: true, hold: rows[0] } : { created: false, ...keyUse(used) };
  } catch (err) {
    throw await refusalOfWrite(db, err, [h]);
  }
}

/** A hold still 'held' at `nowS` becomes `set` (never from any other status: a trigger says so). */
const resolve = (db: Db, id: number, nowS: number, set: SQLiteUpdateSetSource<typeof holds>) =>
  db
    .update(holds)
    .set({ ...set, resolvedAtS: sql`CAST(${nowS} AS INTEGER)` })
    .where(and(eq(holds.id, id), counting(nowS)))
    .returning({ id: holds.id });

/**
 * Captures `capturedMinor` of a hold and writes its DEBIT (`debit`, naming the hold), in one batch:
 * the status change first, then the entry, which writes only when the hold is captured and has no
 * entry yet. A batch that finds the hold resolved changes nothing. Answers the hold as it is after.
 */
export async function captureHold(db: Db, debit: NewEntry & { holdId: number }, nowS: number) {
  try {
    const [marked, entry, after] = await db.batch([
      resolve(db, debit.holdId, nowS, {
        status: "captured",
        capturedMinor: sql`CAST(${debit.amountMinor} AS INTEGER)`,
      }),
      insertEntry(db, debit),
      holdAfter(db, debit.holdId),
    ]);
    // A hold marked captured by this batch always has its entry from it (the guard above).
    if (marked.length > 0 && entry.length === 0) throw new Error("capture wrote no entry");
    return { captured: marked.length > 0, after: after[0] };
  } catch (err) {
    throw refusalOf(err, [debit]);
  }
}

/** Voids a hold still 'held': answers whether this call did, and the hold as it is after. */
export async function voidHold(db: Db, id: number, nowS: number) {
  const [marked, after] = await db.batch([
    resolve(db, id, nowS, { status: "voided" }),
    holdAfter(db, id),
  ]);
  return { voided: marked.length > 0, after: after[0] };
}

/** Holds marked expired per statement, so one sweep's statement stays small. */
export const EXPIRY_BATCH = 500;

/**
 * Records as expired up to EXPIRY_BATCH holds whose time ran out by `nowS` (they stopped counting
 * then already; this is bookkeeping). Each is resolved at its own expires_at_s. Answers how many.
 */
export async function expireHolds(db: Db, nowS: number) {
  const due = db.select({ id: holds.id }).from(holds).where(ranOut(nowS)).limit(EXPIRY_BATCH);
  const rows = await db
    .update(holds)
    .set({ status: "expired", resolvedAtS: sql`${holds.expiresAtS}` })
    .where(and(inArray(holds.id, due), sql`${holds.status} = 'held'`))
    .returning({ id: holds.id });
  return rows.length;
}

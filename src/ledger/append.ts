// The write path: every movement of money is appended here, in one D1 batch per movement, with the
// database's guards (CHECKs, UNIQUE keys, triggers) judging it inside the same statements.
import { and, eq, type Placeholder, type Query, sql } from "drizzle-orm";
import { atPrimary, batchAll, type Db, d1ErrorText } from "../db/client";
import { selectList } from "../db/insert-select";
import { BuiltOnce } from "../db/prebuilt";
import { balances, batches, holds, transactions, users, wallets } from "../db/schema";
import { requestKey as keyOf } from "./request-key";
import { uniqueSlug } from "./unique-slug";

export type NewEntry = {
  userId: number;
  walletId: string;
  txnType: "CREDIT" | "DEBIT";
  amountMinor: number;
  amountText: string;
  requestId: string;
  /** False for entries no client request names (a transfer's receiving half). */
  keyed: boolean;
  note: string;
  title: string;
  slugBase: string;
  /** The site a stored guid names (`<guidSite>/wallettransaction/<slug>/`); null stores none. */
  guidSite: string | null;
  createdAtS: number;
  transferId?: string;
  reversesId?: number;
  /** JSON text of a Rimplenet client's `meta_data` (src/compat/entries.ts). */
  metaData?: string;
  /** The hold a capture's DEBIT settles (ledger/holds.ts); unkeyed, its hold holds the key. */
  holdId?: number;
  /** The batch row written before it in the same D1 batch (ledger/batches.ts), found by its key. */
  batch?: BatchRef;
  /** Random, one per request's entry: tells its own entry from another request's (`readBack`). */
  attemptId: string;
};

/** How an entry names its batch's row: by the batch's request key, or the batch it reverses. */
type BatchRef = { requestKey: string } | { reversesBatchId: number };

/**
 * Why the database refused a movement: one of its rules (a CHECK, a trigger, a UNIQUE or foreign
 * key) failed, so the whole batch rolled back.
 */
export class LedgerRefusal extends Error {
  constructor(
    readonly reason: "insufficient-balance" | "balance-limit" | "already-reversed" | "gone",
    /** With `gone`: the users and wallets the movement named, one of which no longer exists. */
    readonly named?: { userIds: number[]; walletIds: string[] },
  ) {
    super(reason);
  }
}

/** Whether (user, request_id) is free: no entry and no hold has it (one key space for both). */
export const keyFree = (userId: number | Placeholder, key: string | null | Placeholder) =>
  sql`NOT EXISTS (SELECT 1 FROM ${transactions} WHERE user_id = ${userId} AND request_key = ${key})
    AND NOT EXISTS (SELECT 1 FROM ${holds} WHERE user_id = ${userId} AND request_key = ${key})`;

/**
 * One ledger entry as a single INSERT … SELECT, so the balance it starts from, its slug and its
 * idempotency check are all read inside the statement that writes it (D1 runs one statement,
 * and one batch, at a time). A keyed entry writes nothing when its (user, request_id) is used; a
 * later entry of a movement writes only if the first one did (`after`, the movement's transfer id).
 * An overdraft (a debit that leaves the balance below zero and lower than it was) fails the
 * `transactions_no_overdraft` CHECK and so aborts the batch.
 */
export function insertEntry(db: Db, e: NewEntry, after?: string) {
  return insertRow(db, valuesOf(e), shapeOf(e, after));
}

/** What changes an entry's SQL text (the rest only its bound values). */
type EntryShape = {
  after?: string | Placeholder;
  withGuid: boolean;
  reverses: boolean;
  hold: boolean;
  batch?: BatchRef;
};

/** What an entry's statement binds. */
const valuesOf = (e: NewEntry) => ({
  userId: e.userId,
  walletId: e.walletId,
  txnType: e.txnType,
  amountMinor: e.amountMinor,
  amountText: e.amountText,
  requestId: e.requestId,
  note: e.note,
  title: e.title,
  slugBase: e.slugBase,
  createdAtS: e.createdAtS,
  requestKey: e.keyed ? keyOf(e.requestId) : null,
  signed: e.txnType === "CREDIT" ? e.amountMinor : -e.amountMinor,
  guidPrefix: `${e.guidSite}/wallettransaction/`,
  transferId: e.transferId ?? null,
  metaData: e.metaData ?? null,
  reversesId: e.reversesId ?? null,
  holdId: e.holdId ?? null,
  attemptId: e.attemptId,
});

/** Each value an entry's statement binds, or a placeholder in the isolate's prepared text. */
type EntryValues = {
  [K in keyof ReturnType<typeof valuesOf>]: ReturnType<typeof valuesOf>[K] | Placeholder;
};

const shapeOf = (e: NewEntry, after?: EntryShape["after"]): EntryShape => ({
  after,
  withGuid: e.guidSite !== null,
  reverses: e.reversesId !== undefined,
  hold: e.holdId !== undefined,
  batch: e.batch,
});

/** The id of the batch row an entry's batch statement wrote before it. */
const batchIdOf = (ref: BatchRef) =>
  "requestKey" in ref
    ? sql`(SELECT id FROM ${batches} WHERE request_key = ${ref.requestKey})`
    : sql`(SELECT id FROM ${batches} WHERE reverses_batch_id = ${ref.reversesBatchId})`;

function insertRow(db: Db, v: EntryValues, shape: EntryShape) {
  const { after, batch } = shape;
  // Guards in the WHERE, not only ON CONFLICT: a CHECK (overdraft) is judged before a conflict is.
  const once = after
    ? sql`EXISTS (SELECT 1 FROM ${transactions} WHERE transfer_id = ${after})`
    : shape.hold
      ? // A capture writes only after its own batch marked the hold captured, and only once.
        sql`EXISTS (SELECT 1 FROM ${holds} WHERE id = ${v.holdId} AND status = 'captured')
          AND NOT EXISTS (SELECT 1 FROM ${transactions} WHERE hold_id = ${v.holdId})`
      : keyFree(v.userId, v.requestKey);
  // The first entry of a movement skips quietly when its reversal is already done (a clean 409);
  // a later one must never skip alone, so the transactions_reversed_once trigger (backed by
  // UNIQUE(reverses_id)) fails it and aborts the batch.
  // A batch's entry never skips: a used key or a reversed entry fails it, and the whole batch with it.
  const guard = batch
    ? sql`1`
    : !shape.reverses || after
      ? once
      : sql`${once} AND NOT EXISTS (SELECT 1 FROM ${transactions} WHERE reverses_id = ${v.reversesId})`;
  // D1 binds JS numbers as REAL: the CASTs keep the balance arithmetic in 64-bit integers. The
  // columns only imports set (the local and modified dates) stay NULL, and `imported` is 0, so the
  // service's entries keep the no-zero and no-overdraft rules. The slug is found once (`s`) and
  // named by the guid too; a guid some imported entry already holds is left NULL (built when read),
  // since the UNIQUE index would otherwise skip the entry as a conflict (`guid <> ''` repeats the
  // partial index's condition, so the planner may use it).
  const guid = shape.withGuid
    ? sql`(SELECT CASE WHEN EXISTS (SELECT 1 FROM ${transactions} WHERE guid = g.text AND guid <> '') THEN NULL ELSE g.text END
          FROM (SELECT ${v.guidPrefix} || s.slug || '/' AS text) g)`
    : null;
  const values = selectList(transactions, {
    id: null,
    userId: v.userId,
    walletId: v.walletId,
    txnType: v.txnType,
    amountMinor: sql`CAST(${v.amountMinor} AS INTEGER)`,
    amountText: v.amountText,
    balanceBeforeMinor: sql`b.minor`,
    balanceAfterMinor: sql`b.minor + CAST(${v.signed} AS INTEGER)`,
    requestId: v.requestId,
    requestKey: v.requestKey,
    transferId: v.transferId,
    reversesId: v.reversesId,
    note: v.note,
    title: v.title,
    slugBase: v.slugBase,
    slug: sql`s.slug`,
    createdAtS: v.createdAtS,
    guid,
    localDate: null,
    modifiedLocalDate: null,
    modifiedGmtDate: null,
    imported: sql`0`,
    metaData: v.metaData,
    holdId: v.holdId,
    batchId: batch ? batchIdOf(batch) : null,
    attemptId: v.attemptId,
  });
  const row = sql`SELECT ${values}
    FROM (SELECT coalesce((SELECT balance_minor FROM ${balances} WHERE user_id = ${v.userId} AND wallet_id = ${v.walletId}), 0) AS minor) b,
      (SELECT ${uniqueSlug(v.slugBase)} AS slug) s
    WHERE ${guard}`;
  const insert = db.insert(transactions).select(row);
  return (after || batch ? insert : insert.onConflictDoNothing()).returning({
    id: transactions.id,
  });
}

/** What holds (user, request_id): an entry, or a hold (one key space for both), or nothing. */
export const usedUnder = (db: Db, userId: number, requestId: string) =>
  usedUnderKey(db, userId, keyOf(requestId));

const usedUnderKey = (db: Db, userId: number | Placeholder, key: string | Placeholder) =>
  db
    .select({
      entryId: sql<
        number | null
      >`(SELECT id FROM ${transactions} WHERE user_id = ${userId} AND request_key = ${key})`.as(
        "used_entry_id",
      ),
      holdId: sql<
        number | null
      >`(SELECT id FROM ${holds} WHERE user_id = ${userId} AND request_key = ${key})`.as(
        "used_hold_id",
      ),
    })
    .from(sql`(SELECT 1)`);

/** A request_id already used: the entry or the hold that has it. */
export type KeyUse = { existingId: number | undefined; existingHoldId?: number };

export const keyUse = (rows: readonly { entryId: number | null; holdId: number | null }[]) => ({
  existingId: rows[0]?.entryId ?? undefined,
  ...(rows[0]?.holdId == null ? {} : { existingHoldId: rows[0].holdId }),
});

/**
 * What the ledger holds for each keyed entry's (user, request_id), read at the primary (atPrimary)
 * after a batch whose outcome is unknown: the entry itself (it holds the entry's attempt id: the
 * batch committed it, answered as written), another entry under the same key (a repeat, though it
 * be identical, written by another request: answered as one), or nothing, undefined (the batch did
 * not commit it). So of a client's identical retries only the one whose entry was written is
 * answered as its writer.
 */
export async function readBack(db: Db, entries: NewEntry[]) {
  const primary = atPrimary(db);
  const rows = await batchAll(
    primary.db,
    entries.map((e) => entryUnder(primary.db, e.userId, e.requestId)),
  );
  primary.done();
  return entries.map((e, i): AppendResult | undefined => {
    const row = rows[i]![0];
    if (row === undefined) return undefined;
    return row.attemptId === e.attemptId
      ? { created: true, ids: [row.id] }
      : { created: false, existingId: row.id };
  });
}

/** The entry a user's request_id (compared as keys are) wrote, and the attempt that wrote it. */
export const entryUnder = (db: Db, userId: number, requestId: string) =>
  db
    .select({ id: transactions.id, attemptId: transactions.attemptId })
    .from(transactions)
    .where(and(eq(transactions.userId, userId), eq(transactions.requestKey, keyOf(requestId))));

export type AppendResult = { created: true; ids: number[] } | ({ created: false } & KeyUse);

/**
 * Whether a failed batch was refused by one of the ledger's rules (a CHECK, a UNIQUE key, a
 * trigger's RAISE): SQLite judged it and rolled it back, so none of it was written. Any other
 * failure (a connection lost, a reset) leaves the outcome unknown: the batch may have committed.
 */
export const refusedByRule = (err: unknown) =>
  err instanceof LedgerRefusal || /SQLITE_CONSTRAINT|constraint failed/i.test(d1ErrorText(err));

type Named = { userId: number; walletId: string }[];

/** The users and wallets a movement names, each once. */
const namedIn = (movement: Named) => ({
  userIds: [...new Set(movement.map((e) => e.userId))],
  walletIds: [...new Set(movement.map((e) => e.walletId))],
});

/** A failed write's error as the ledger's refusal, naming the users and wallets it touched. */
export function refusalOf(err: unknown, movement: Named) {
  const text = d1ErrorText(err);
  // A user or wallet deleted since this isolate cached it: the foreign key refuses the entry.
  if (/FOREIGN KEY constraint failed/i.test(text))
    return new LedgerRefusal("gone", namedIn(movement));
  // Below zero, or below what holds reserve (docs/ledger.md#holds): the same refusal.
  if (/transactions_no_overdraft|transactions_within_available|holds_within_available/.test(text))
    return new LedgerRefusal("insufficient-balance");
  if (text.includes("transactions_balance_limit")) return new LedgerRefusal("balance-limit");
  if (text.includes("transactions.reverses_id") || text.includes("transactions_reverses"))
    return new LedgerRefusal("already-reversed");
  return err;
}

/** Whether the ledger refused a write for a balance: below zero or holds, or past the largest. */
export const isBalanceVerdict = (err: unknown) =>
  err instanceof LedgerRefusal &&
  (err.reason === "insufficient-balance" || err.reason === "balance-limit");

/**
 * A failed write's error as `refusalOf` words it, but a balance verdict on a write that no money
 * would let through is what stops it: a user or wallet it names that no longer exists (`gone`), or
 * an entry it reverses that another entry has reversed since (`already-reversed`). The triggers
 * and CHECKs that judge balances run before the UNIQUE index and the foreign keys (checked at the
 * statement's end) that say so. Read on the refused path only; should that read fail, the verdict
 * stands.
 */
export async function refusalOfWrite(
  db: Db,
  err: unknown,
  movement: (Named[number] & { reversesId?: number })[],
) {
  const refused = refusalOf(err, movement);
  if (!isBalanceVerdict(refused)) return refused;
  const named = namedIn(movement);
  const reverses = movement.flatMap((e) => (e.reversesId === undefined ? [] : [e.reversesId]));
  const among = (ids: unknown[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;
  const [found] = await db
    .select({
      users: sql<number>`(SELECT count(*) FROM ${users} WHERE ${users.id} IN ${among(named.userIds)})`,
      wallets: sql<number>`(SELECT count(*) FROM ${wallets} WHERE ${wallets.id} IN ${among(named.walletIds)})`,
      reversed: sql<number>`(SELECT count(*) FROM ${transactions} WHERE ${transactions.reversesId} IN ${among(reverses)})`,
    })
    .from(sql`(SELECT 1)`)
    .catch(() => []);
  if (found === undefined) return refused;
  if (found.users < named.userIds.length || found.wallets < named.walletIds.length)
    return new LedgerRefusal("gone", named);
  return found.reversed > 0 ? new LedgerRefusal("already-reversed") : refused;
}

/** The movements' statements, built once per isolate for each shape. */
const writes = new BuiltOnce();

/** An entry's text and values (`insertEntry`'s), the text built once per isolate for its shape. */
function entryQuery(db: Db, e: NewEntry, after?: string): Query {
  if (e.batch) throw new Error("a batch's entries are written by ledger/batches.ts");
  const shape = shapeOf(e, after === undefined ? undefined : sql.placeholder("after"));
  const name = [
    "entry",
    shape.withGuid && "guid",
    shape.reverses && "reverses",
    shape.hold && "hold",
    shape.after && "after",
  ].filter(Boolean);
  const values = valuesOf(e);
  // A placeholder for each value, by its name.
  const build = () => {
    const v = Object.fromEntries(Object.keys(values).map((n) => [n, sql.placeholder(n)]));
    return insertRow(db, v as EntryValues, shape);
  };
  return writes.query(name.join(" "), build, { ...values, after });
}

/**
 * The text and values of one movement's statements: its entries, then the look-up of its
 * request_id, the same as Drizzle builds for them (`insertEntry`, `usedUnder`), the text built once
 * per isolate for each shape (db/prebuilt.ts) rather than by Drizzle for each entry.
 */
export function movementQueries(db: Db, [first, ...rest]: [NewEntry, ...NewEntry[]]): Query[] {
  const used = () => usedUnderKey(db, sql.placeholder("userId"), sql.placeholder("lookupKey"));
  return [
    entryQuery(db, first),
    ...rest.map((e) => entryQuery(db, e, first.transferId)),
    writes.query("request key used", used, {
      userId: first.userId,
      lookupKey: keyOf(first.requestId),
    }),
  ];
}

/** A movement's statements on the request's handle, so its meter counts them. */
export const movementStatements = (db: Db, movement: [NewEntry, ...NewEntry[]]) =>
  movementQueries(db, movement).map((q) => db.$client.prepare(q.sql).bind(...q.params));

/** What a movement's statements answered (`movementStatements`, in the same order). */
export function movementResult(results: readonly D1Result[]): AppendResult {
  const inserted = results.slice(0, -1).map((r) => r.results as { id: number }[]);
  if (inserted.every((rows) => rows.length === 1))
    return { created: true, ids: inserted.map((rows) => rows[0]!.id) };
  const used = (results.at(-1)?.results ?? []) as {
    used_entry_id: number | null;
    used_hold_id: number | null;
  }[];
  return {
    created: false,
    ...keyUse(used.map((r) => ({ entryId: r.used_entry_id, holdId: r.used_hold_id }))),
  };
}

/**
 * Appends a movement (one entry, or the linked entries of a transfer or reversal) in one batch: all
 * of it or none. The first entry carries the client's request_id; a replay reports the entry that
 * request already made (`existingId`), and a skipped movement without one lost a uniqueness race.
 */
export async function appendEntries(
  db: Db,
  movement: [NewEntry, ...NewEntry[]],
): Promise<AppendResult> {
  try {
    return movementResult(await db.$client.batch(movementStatements(db, movement)));
  } catch (err) {
    throw await refusalOfWrite(db, err, movement);
  }
}

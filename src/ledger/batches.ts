// A batch of movements written as one D1 batch: its row first, then every entry, each naming the
// row. D1 runs a batch as one transaction, so any statement that fails (an overdraft CHECK, a used
// key, an entry already reversed) rolls all of it back: every leg or none (docs/ledger.md#batches).
import * as v from "valibot";
import type { BatchRow } from "../db/batches";
import { batchAll, type Db, d1ErrorText } from "../db/client";
import type { EntryRow } from "../db/ledger";
import { batches } from "../db/schema";
import {
  insertEntry,
  isBalanceVerdict,
  type KeyUse,
  keyUse,
  type NewEntry,
  refusalOfWrite,
  usedUnder,
} from "./append";
import { int, type SiteSettings, TransactionAnswer, transactionRecord } from "./transaction-record";

/** Why the database refused a batch beyond an entry's own rules (LedgerRefusal's). */
export class BatchConflict extends Error {
  constructor(
    /** `exists`: its request_id has a batch; `reversed`: the batch it reverses has a reversal;
     * `key-used`: a keyed entry's request_id is taken in its user's key space. */
    readonly reason: "exists" | "reversed" | "key-used",
    /** For `key-used`: the first entry (its index in the batch) whose key is taken, and by what. */
    readonly used?: { entry: number; use: KeyUse },
  ) {
    super(reason);
  }
}

/** A batch as its writer names it: the row counts its entries itself. */
type NewBatch = Omit<typeof batches.$inferInsert, "id" | "entryCount">;

/** Writes a batch and its entries, all or none; answers the batch's id and its entries' ids in order. */
export async function appendBatch(db: Db, batch: NewBatch, entries: [NewEntry, ...NewEntry[]]) {
  try {
    const [written, ...inserted] = await db.batch([
      db
        .insert(batches)
        .values({ ...batch, entryCount: entries.length })
        .returning({ id: batches.id }),
      ...entries.map((e) => insertEntry(db, e)),
    ]);
    return { batchId: written[0]!.id, ids: inserted.map((rows) => rows[0]!.id) };
  } catch (err) {
    const text = d1ErrorText(err);
    // A batch's entries never skip (append.ts): a conflict is a UNIQUE index failing the batch.
    if (text.includes("batches.request_key")) throw new BatchConflict("exists");
    if (text.includes("batches.reverses_batch_id")) throw new BatchConflict("reversed");
    // A leg's key taken: by the UNIQUE index, by transactions_no_replace (which says
    // ledger_append_only: a batch entry's id is always new, so only its key can collide), or by a
    // hold (transactions_request_key_free).
    const keyTaken = /transactions\.request_key|ledger_append_only|transactions_request_key_free/;
    const refused = keyTaken.test(text) ? undefined : await refusalOfWrite(db, err, entries);
    // A leg's key taken can be met after a balance refusal too: an earlier leg's (the legs run in
    // order), or its own against what holds reserve (transactions_within_available fires before
    // the triggers on keys). No balance changes a used key.
    if (refused === undefined || isBalanceVerdict(refused)) {
      const used = await firstKeyUsed(db, entries);
      if (used) throw new BatchConflict("key-used", used);
    }
    throw refused ?? err;
  }
}

/** The first keyed entry whose (user, request_id) an entry or a hold has already: one round trip. */
async function firstKeyUsed(db: Db, entries: NewEntry[]) {
  const keyed = [...entries.entries()].filter(([, e]) => e.keyed);
  const uses = await batchAll(
    db,
    keyed.map(([, e]) => usedUnder(db, e.userId, e.requestId)),
  );
  for (const [n, [entry]] of keyed.entries()) {
    const use = keyUse(uses[n]!);
    if ((use.existingId ?? use.existingHoldId) !== undefined) return { entry, use };
  }
  return undefined;
}

/** An entry of a batch: its record as GET /transactions/{id} answers it, naming its batch. */
const BatchEntryAnswer = v.strictObject({ ...TransactionAnswer.entries, batch_id: int });

export const BatchAnswer = v.strictObject({
  batch_id: int,
  request_id: v.string(),
  created_at: v.string(),
  status: v.picklist(["completed", "reversed"]),
  balanced: v.boolean(),
  /** For a reversal: the batch it reverses. */
  reverses_batch_id: v.nullable(int),
  /** For a reversed batch: the batch that reversed it. */
  reversal_batch_id: v.nullable(int),
  transactions: v.array(BatchEntryAnswer),
});
type BatchRecord = v.InferOutput<typeof BatchAnswer>;

type BatchView = {
  batch: Pick<BatchRow, "id" | "requestId" | "balanced" | "createdAtS" | "reversesBatchId">;
  reversalId: number | null;
  entries: EntryRow[];
};

/** A batch as GET /batches/{id} answers it, and as its events carry it. */
export const batchRecord = (
  { batch, reversalId, entries }: BatchView,
  site: SiteSettings,
): BatchRecord => ({
  batch_id: batch.id,
  request_id: batch.requestId,
  created_at: new Date(batch.createdAtS * 1000).toISOString(),
  status: reversalId === null ? "completed" : "reversed",
  balanced: batch.balanced,
  reverses_batch_id: batch.reversesBatchId,
  reversal_batch_id: reversalId,
  transactions: entries.map((row) => ({ ...transactionRecord(row, site), batch_id: batch.id })),
});

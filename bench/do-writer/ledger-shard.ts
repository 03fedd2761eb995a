import { DurableObject } from "cloudflare:workers";
import type { NewEntry } from "../../src/ledger/append";
import { MAX_MINOR } from "../../src/ledger/money";
import { requestKey } from "../../src/ledger/request-key";

/** What a credit did: written, found already written under its request_id, or refused. */
export type ShardCredit =
  | { created: true; id: number }
  | { created: false; existingId: number }
  | { refused: "balance-limit" };

export type ShardAudit = {
  wallets: { walletId: string; balanceMinor: number; sumMinor: number; entries: number }[];
};

// The shard's own schema: the D1 ledger's guards that concern one user, in the object's SQLite.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  wallet_id TEXT NOT NULL,
  txn_type TEXT NOT NULL CHECK (txn_type IN ('CREDIT', 'DEBIT')),
  amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
  amount_text TEXT NOT NULL,
  balance_before_minor INTEGER NOT NULL,
  balance_after_minor INTEGER NOT NULL CHECK (abs(balance_after_minor) <= ${MAX_MINOR}),
  request_id TEXT NOT NULL,
  request_key TEXT NOT NULL UNIQUE,
  note TEXT NOT NULL,
  title TEXT NOT NULL,
  slug_base TEXT NOT NULL,
  slug TEXT NOT NULL,
  created_at_s INTEGER NOT NULL,
  CHECK (balance_after_minor = balance_before_minor +
    CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END)
);
CREATE INDEX IF NOT EXISTS entries_slug_base ON entries (slug_base);
CREATE TABLE IF NOT EXISTS balances (
  wallet_id TEXT PRIMARY KEY,
  balance_minor INTEGER NOT NULL CHECK (abs(balance_minor) <= ${MAX_MINOR})
);`;

/**
 * The sharding prototype's single writer (docs/scaling.md): one object per user, named by
 * `idFromName("user:<id>")`, holding that user's entries and balances in its own SQLite. The object
 * runs one call at a time and each credit is one synchronous `transactionSync` with no await inside,
 * so nothing interleaves between reading the balance and writing the entry: the arithmetic can be
 * done here, where over D1 (no interactive transactions) it must be done in SQL.
 */
export class LedgerShard extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(SCHEMA);
  }

  private one<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]) {
    return this.ctx.storage.sql.exec<T>(query, ...bindings).toArray()[0];
  }

  /** Appends one credit unless its request_id (A–Z folded, as over D1) is already used. */
  credit(e: NewEntry): ShardCredit {
    const key = requestKey(e.requestId);
    return this.ctx.storage.transactionSync((): ShardCredit => {
      const used = this.one<{ id: number }>("SELECT id FROM entries WHERE request_key = ?", key);
      if (used) return { created: false, existingId: used.id };
      const before =
        this.one<{ minor: number }>(
          "SELECT balance_minor AS minor FROM balances WHERE wallet_id = ?",
          e.walletId,
        )?.minor ?? 0;
      const after = before + e.amountMinor;
      if (after > MAX_MINOR) return { refused: "balance-limit" };
      // wp_unique_post_slug's "-2", "-3" …, within the shard: the base names the user, so it is the
      // user's own entries that can collide.
      const taken =
        this.one<{ n: number }>("SELECT count(*) AS n FROM entries WHERE slug_base = ?", e.slugBase)
          ?.n ?? 0;
      const slug = taken === 0 ? e.slugBase : `${e.slugBase}-${taken + 1}`;
      const row = this.one<{ id: number }>(
        `INSERT INTO entries (wallet_id, txn_type, amount_minor, amount_text, balance_before_minor,
           balance_after_minor, request_id, request_key, note, title, slug_base, slug, created_at_s)
         VALUES (?, 'CREDIT', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        e.walletId,
        e.amountMinor,
        e.amountText,
        before,
        after,
        e.requestId,
        key,
        e.note,
        e.title,
        e.slugBase,
        slug,
        e.createdAtS,
      )!;
      this.ctx.storage.sql.exec(
        `INSERT INTO balances (wallet_id, balance_minor) VALUES (?, ?)
         ON CONFLICT (wallet_id) DO UPDATE SET balance_minor = excluded.balance_minor`,
        e.walletId,
        after,
      );
      return { created: true, id: row.id };
    });
  }

  /** The user's balances in the wallets named (minor units); a wallet never credited is absent. */
  balances(walletIds: string[]): Record<string, number> {
    const rows = this.ctx.storage.sql
      .exec<{ wallet_id: string; balance_minor: number }>(
        `SELECT wallet_id, balance_minor FROM balances
         WHERE wallet_id IN (SELECT value FROM json_each(?))`,
        JSON.stringify(walletIds),
      )
      .toArray();
    return Object.fromEntries(rows.map((r) => [r.wallet_id, r.balance_minor]));
  }

  /** Each wallet's balance beside the sum and count of its entries, for tests and the bench. */
  audit(): ShardAudit {
    const rows = this.ctx.storage.sql
      .exec<{ wallet_id: string; balance_minor: number; sum_minor: number; entries: number }>(
        `SELECT w.wallet_id, coalesce(b.balance_minor, 0) AS balance_minor,
           coalesce(s.sum_minor, 0) AS sum_minor, coalesce(s.entries, 0) AS entries
         FROM (SELECT wallet_id FROM balances UNION SELECT wallet_id FROM entries) w
         LEFT JOIN balances b USING (wallet_id)
         LEFT JOIN (SELECT wallet_id, count(*) AS entries,
             sum(CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END) AS sum_minor
           FROM entries GROUP BY wallet_id) s USING (wallet_id)`,
      )
      .toArray();
    return {
      wallets: rows.map((r) => ({
        walletId: r.wallet_id,
        balanceMinor: r.balance_minor,
        sumMinor: r.sum_minor,
        entries: r.entries,
      })),
    };
  }
}

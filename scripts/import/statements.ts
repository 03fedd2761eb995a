// Writing SQL: the statements of an import, as text (they go into files that `wrangler d1 execute`
// runs, or into one D1 batch). Columns come from the Drizzle schema. Every statement checks the
// database itself, so running a plan again writes nothing twice. The statements avoid CASE … END
// (and BEGIN): SQL splitters that look for compound statements, such as wrangler's, take them for a
// trigger body. No Node APIs (the Worker tests run this).
import { getTableName, sql } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { transactions, users, wallets } from "../../src/db/schema";
import { requestKey } from "../../src/ledger/request-key";
import { uniqueSlug } from "../../src/ledger/unique-slug";
import { columnsAndValues, type RowValues, sqlLiteral } from "../lib/sql";

export type PlannedUser = {
  id: number;
  username: string;
  email: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  role: "administrator" | "subscriber";
  registeredAtMs: number;
};

export type PlannedWallet = {
  postId: number;
  id: string;
  name: string;
  symbol: string;
  symbolPosition: "left" | "right";
  decimals: number;
  extraDecimals: number;
  type: string;
  note: string;
  createdAtMs: number;
  /** The post's term names. */
  terms: string[];
  /** The database has this wallet already (its units stand). */
  present?: boolean;
  /** The database deleted a wallet of this id: a new one must have its units (`extraDecimals` is set). */
  unitsKept?: boolean;
};

/** A balance adjustment the import adds (`--balances site`): the next id, its own request_id. */
export type Adjustment = {
  userId: number;
  walletId: string;
  txnType: "CREDIT" | "DEBIT";
  amountMinor: number;
  amountText: string;
  requestId: string;
  note: string;
  title: string;
  slugBase: string;
  createdAtS: number;
};

/** A site's transaction as an entry, in the wallet's storage units: an adjustment's fields and more. */
export type PlannedEntry = Adjustment & {
  id: number;
  requestKey: string | null;
  transferId: string | null;
  slug: string;
  guid: string;
  localDate: string;
  modifiedLocalDate: string | null;
  modifiedGmtDate: string | null;
  /** The post's meta the plugin did not write, as JSON text (key → value as stored); null: none. */
  metaData: string | null;
};

const insert = <T extends typeof users | typeof wallets>(table: T, row: RowValues<T>) => {
  const { columns, values } = columnsAndValues(table, row);
  return `INSERT INTO ${getTableName(table)} (${columns}) VALUES (${values}) ON CONFLICT DO NOTHING;`;
};

export const userInsert = (u: PlannedUser) =>
  insert(users, {
    id: sqlLiteral(u.id),
    username: sqlLiteral(u.username),
    email: sqlLiteral(u.email),
    passwordHash: sqlLiteral(u.passwordHash),
    firstName: sqlLiteral(u.firstName),
    lastName: sqlLiteral(u.lastName),
    role: sqlLiteral(u.role),
    registeredAtMs: sqlLiteral(u.registeredAtMs),
    // This service never verified an imported address (docs/mail.md); its user can, by mail.
    emailVerifiedAtMs: sqlLiteral(null),
  });

export const walletInsert = (w: PlannedWallet) =>
  insert(wallets, {
    id: sqlLiteral(w.id),
    name: sqlLiteral(w.name),
    symbol: sqlLiteral(w.symbol),
    symbolPosition: sqlLiteral(w.symbolPosition),
    decimals: sqlLiteral(w.decimals),
    extraDecimals: sqlLiteral(w.extraDecimals),
    type: sqlLiteral(w.type),
    note: sqlLiteral(w.note),
    createdAtMs: sqlLiteral(w.createdAtMs),
    // Given by trigger `wallets_post_id`, as to a wallet the API creates.
    postId: sqlLiteral(null),
  });

/** request_key, unless that user already has it (then the entry is kept, unkeyed). */
function requestKeyExpr(userId: number, key: string | null) {
  if (key === null) return "NULL";
  const k = sqlLiteral(key);
  // Entries and holds share one key space (docs/ledger.md#holds): a key either has is not taken.
  return `(SELECT ${k} WHERE NOT EXISTS (SELECT 1 FROM transactions WHERE user_id = ${userId} AND request_key = ${k})
    AND NOT EXISTS (SELECT 1 FROM holds WHERE user_id = ${userId} AND request_key = ${k}))`;
}

const dialect = new SQLiteSyncDialect();

/**
 * `slug` when no entry has it, else the first free `slug-N` (N = 2, 3, …): the service's own
 * expression (src/ledger/unique-slug.ts), written out as text with the slug as an SQL literal.
 */
const uniqueSlugExpr = (slug: string) =>
  dialect.sqlToQuery(uniqueSlug(sql.raw(sqlLiteral(slug))).inlineParams()).sql;

/** The post's guid, unless another entry already holds it (then NULL: read back from SITE_URL). */
function guidExpr(guid: string) {
  if (guid === "") return sqlLiteral(guid);
  const g = sqlLiteral(guid);
  return `(SELECT ${g} WHERE NOT EXISTS (SELECT 1 FROM transactions WHERE guid = ${g} AND guid <> ''))`;
}

/** An entry as `INSERT … SELECT <values> WHERE <guard>`; `imported` is 1 on all the import writes. */
function entryInsert(row: RowValues<typeof transactions>, guard: string) {
  const { columns, values } = columnsAndValues(transactions, row);
  return `INSERT INTO ${getTableName(transactions)} (${columns}) SELECT ${values} WHERE ${guard};`;
}

/**
 * One imported entry with its WordPress id. Written only if that id is free, so a second run adds
 * nothing; its balance_before is a literal, so the chain guard refuses it unless it continues its
 * (user, wallet) chain exactly. `imported` lets it be zero or go below zero, as the site's did.
 */
export function transactionInsert(e: PlannedEntry, before: number, after: number) {
  return entryInsert(
    {
      id: sqlLiteral(e.id),
      userId: sqlLiteral(e.userId),
      walletId: sqlLiteral(e.walletId),
      txnType: sqlLiteral(e.txnType),
      amountMinor: sqlLiteral(e.amountMinor),
      amountText: sqlLiteral(e.amountText),
      balanceBeforeMinor: sqlLiteral(before),
      balanceAfterMinor: sqlLiteral(after),
      requestId: sqlLiteral(e.requestId),
      requestKey: requestKeyExpr(e.userId, e.requestKey),
      transferId: sqlLiteral(e.transferId),
      reversesId: "NULL",
      note: sqlLiteral(e.note),
      title: sqlLiteral(e.title),
      slugBase: sqlLiteral(e.slugBase),
      slug: e.slug === "" ? "''" : uniqueSlugExpr(e.slug),
      createdAtS: sqlLiteral(e.createdAtS),
      guid: guidExpr(e.guid),
      localDate: sqlLiteral(e.localDate),
      modifiedLocalDate: sqlLiteral(e.modifiedLocalDate),
      modifiedGmtDate: sqlLiteral(e.modifiedGmtDate),
      imported: "1",
      metaData: sqlLiteral(e.metaData),
      holdId: "NULL",
      batchId: "NULL",
      attemptId: "NULL",
    },
    `NOT EXISTS (SELECT 1 FROM transactions WHERE id = ${e.id})`,
  );
}

/**
 * A balance adjustment the import adds (the next id), keyed by its own request_id so a second run adds
 * nothing. Its slug takes the next free suffix as the service's own entries do.
 */
export function adjustmentInsert(a: Adjustment, before: number, after: number) {
  const key = sqlLiteral(requestKey(a.requestId));
  return entryInsert(
    {
      id: "NULL",
      userId: sqlLiteral(a.userId),
      walletId: sqlLiteral(a.walletId),
      txnType: sqlLiteral(a.txnType),
      amountMinor: sqlLiteral(a.amountMinor),
      amountText: sqlLiteral(a.amountText),
      balanceBeforeMinor: sqlLiteral(before),
      balanceAfterMinor: sqlLiteral(after),
      requestId: sqlLiteral(a.requestId),
      requestKey: key,
      transferId: "NULL",
      reversesId: "NULL",
      note: sqlLiteral(a.note),
      title: sqlLiteral(a.title),
      slugBase: sqlLiteral(a.slugBase),
      slug: uniqueSlugExpr(a.slugBase),
      createdAtS: sqlLiteral(a.createdAtS),
      guid: "NULL",
      localDate: "NULL",
      modifiedLocalDate: "NULL",
      modifiedGmtDate: "NULL",
      imported: "1",
      metaData: "NULL",
      holdId: "NULL",
      batchId: "NULL",
      attemptId: "NULL",
    },
    `NOT EXISTS (SELECT 1 FROM transactions WHERE user_id = ${a.userId} AND request_key = ${key})`,
  );
}

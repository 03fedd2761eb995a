import { sql } from "drizzle-orm";
import {
  type AnySQLiteColumn,
  check,
  customType,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

// Table shapes are storage only: nothing on the wire is derived from them (WordPress owns the wire).
// Ledger guards that a CHECK cannot express (the balance chain, append-only rows) are triggers,
// first made in drizzle/0001_ledger_guards.sql. A migration named for a trigger here is the one that
// made it first; one that rebuilt its table made it again since, so the trigger's text today is its
// newest `CREATE TRIGGER` in drizzle/.

/** A list of names kept as one comma-separated text (no name holds a comma). */
const commaList = customType<{ data: readonly string[]; driverData: string }>({
  dataType: () => "text",
  toDriver: (names) => names.join(","),
  fromDriver: (text) => text.split(","),
});

/**
 * A password hash marked unusable: no password matches it (no sign-in reads it as any kind) and no
 * reset mail replaces it, so its account cannot sign in, as Django's unusable passwords, which
 * begin so too. The WordPress import marks the site's hash of a user its network flagged as spam
 * (WordPress refuses that user); the site's hash follows the mark, so removing it restores the hash.
 */
export const UNUSABLE_MARK = "!";
export const isUnusableHash = (hash: string) => hash.startsWith(UNUSABLE_MARK);
/** Whether a users row's password is usable, as SQL text (the tools' statements are text). */
export const PASSWORD_USABLE_SQL = `substr(password_hash, 1, 1) <> '${UNUSABLE_MARK}'`;

export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    username: text("username").notNull(),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    firstName: text("first_name").notNull().default(""),
    lastName: text("last_name").notNull().default(""),
    role: text("role", { enum: ["administrator", "subscriber"] }).notNull(),
    registeredAtMs: integer("registered_at_ms").notNull(),
    // When the user followed a verification link mailed to `email` (docs/mail.md); NULL: never.
    emailVerifiedAtMs: integer("email_verified_at_ms"),
  },
  (t) => [
    uniqueIndex("users_username_ci").on(sql`lower(${t.username})`),
    uniqueIndex("users_email_ci").on(sql`lower(${t.email})`),
    check("users_role", sql`${t.role} IN ('administrator', 'subscriber')`),
  ],
);

export const wallets = sqliteTable(
  "wallets",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    symbol: text("symbol").notNull(),
    symbolPosition: text("symbol_position", { enum: ["left", "right"] }).notNull(),
    // Display decimals: what the wire shows and what new amounts may carry.
    decimals: integer("decimals").notNull(),
    // Storage precision beyond the display decimals: amounts and balances are integers in units of
    // 10^-(decimals + extra_decimals). 0 for every wallet the API creates; the WordPress import
    // raises it for a wallet whose site recorded amounts with more places than it displays (12.345
    // on a 2-decimal wallet). Range and immutability are triggers of drizzle/0006_lossless_import.sql.
    extraDecimals: integer("extra_decimals").notNull().default(0),
    type: text("type").notNull(),
    note: text("note").notNull().default(""),
    createdAtMs: integer("created_at_ms").notNull(),
    // The Rimplenet dialect's `post_id` (GET wallets, POST wallets' data.wallet_id), as the plugin
    // answered its WordPress post id: given by trigger `wallets_post_id` above every wallet's, a
    // deleted one's too, and a column so that an export carries it (a row number it would not).
    // drizzle/0029_wallet_post_ids.sql.
    postId: integer("post_id"),
  },
  (t) => [
    uniqueIndex("wallets_post_id").on(t.postId),
    check("wallets_id_lowercase", sql`${t.id} = lower(${t.id})`),
    check("wallets_decimals", sql`${t.decimals} BETWEEN 0 AND 8`),
    check("wallets_symbol_position", sql`${t.symbolPosition} IN ('left', 'right')`),
  ],
);
/** A wallet as the service reads it; its `post_id` only the Rimplenet dialect reads (listWalletRows). */
export type Wallet = Omit<typeof wallets.$inferSelect, "postId">;

/** A row's user or wallet: NOT NULL, with its foreign key. */
const userRef = () =>
  integer("user_id")
    .notNull()
    .references(() => users.id);
const walletRef = () =>
  text("wallet_id")
    .notNull()
    .references(() => wallets.id);

// The units of every wallet id ever deleted (trigger `wallets_deleted_keep_units`), so a wallet
// re-created under that id must have the same `decimals` and `extra_decimals` (trigger
// `wallets_recreated_units_fixed`): an isolate that still caches the deleted wallet converts amounts
// with its units (docs/compat.md, "Deleting"). drizzle/0015_deleted_wallet_units.sql.
export const deletedWallets = sqliteTable("deleted_wallets", {
  id: text("id").primaryKey(),
  decimals: integer("decimals").notNull(),
  extraDecimals: integer("extra_decimals").notNull(),
});

// The highest `post_id` a deleted wallet had (trigger `wallets_deleted_keep_post_id`), which trigger
// `wallets_post_id` gives no new wallet: the plugin never gave a post id twice. One row, `id` 1.
// drizzle/0029_wallet_post_ids.sql.
export const deletedWalletPostIds = sqliteTable(
  "deleted_wallet_post_ids",
  {
    id: integer("id").primaryKey(),
    highest: integer("highest").notNull(),
  },
  (t) => [check("deleted_wallet_post_ids_one", sql`${t.id} = 1`)],
);

// Every user id deleted since migration 0020 (trigger `users_deleted_keep_id`; earlier deletions
// left no record), which no user is given again (trigger `users_deleted_id_not_reused`): an isolate
// that still caches the deleted user's username (src/db/isolate-cache.ts) would title another
// user's entries with it. The service's own users
// take ids above every id used (AUTOINCREMENT); this keeps the WordPress import, which writes a
// site's ids as they are, off a deleted one. drizzle/0023_deleted_user_ids.sql.
export const deletedUsers = sqliteTable("deleted_users", {
  id: integer("id").primaryKey(),
  deletedAtMs: integer("deleted_at_ms").notNull(),
});

export const transactions = sqliteTable(
  "transactions",
  {
    // No AUTOINCREMENT (it writes a sqlite_sequence row per entry): entries are never deleted
    // (trigger transactions_no_delete), so the next id, max(id) + 1, is never one used before.
    id: integer("id").primaryKey(),
    userId: userRef(),
    walletId: walletRef(),
    txnType: text("txn_type", { enum: ["CREDIT", "DEBIT"] }).notNull(),
    amountMinor: integer("amount_minor").notNull(),
    // The amount as the client sent it: WordPress shows it back verbatim in post_content and amount.
    amountText: text("amount_text").notNull(),
    balanceBeforeMinor: integer("balance_before_minor").notNull(),
    balanceAfterMinor: integer("balance_after_minor").notNull(),
    requestId: text("request_id").notNull(),
    // request_id with A-Z folded to a-z (ledger/request-key.ts; a trigger checks it): idempotency
    // ignores ASCII case, as the plugin's lookups did, and compares every other character exactly.
    // NULL on entries no client request names: a transfer's receiving half, a reversal's entries
    // after its first, a capture's DEBIT (its hold holds the key), a batch reversal's entries.
    requestKey: text("request_key"),
    // The two halves of a transfer share this key (the plugin's alt_transfer_id).
    transferId: text("transfer_id"),
    // The entry this one reverses; UNIQUE, so an entry is reversed at most once.
    reversesId: integer("reverses_id").references((): AnySQLiteColumn => transactions.id),
    note: text("note").notNull().default(""),
    // post_title and post_name as WordPress would have stored them; slug_base is the name before its
    // -2, -3 suffix (not indexed: slugs are probed through transactions_slug). Slugs (and stored
    // guids) are unique, as wp_unique_post_slug keeps them; an empty one (a WordPress draft's) may
    // repeat.
    title: text("title").notNull(),
    slugBase: text("slug_base").notNull(),
    slug: text("slug").notNull(),
    // Whole seconds, as WordPress dates are: the list orders by (date, ID) like WP_Query does.
    createdAtS: integer("created_at_s").notNull(),
    // Set only on entries imported from a WordPress site (scripts/import-wordpress.ts), so they read
    // back as the site returned them: the post's own guid (NULL: built from SITE_URL), its site-local
    // post_date as stored (NULL: created_at_s in SITE_TIMEZONE), and post_modified/post_modified_gmt
    // when they differ from the post dates (NULL: the same as post_date/post_date_gmt).
    guid: text("guid"),
    localDate: text("local_date"),
    modifiedLocalDate: text("modified_local_date"),
    modifiedGmtDate: text("modified_gmt_date"),
    // Carried over by the WordPress import (a site's entry, or an adjustment the import added). The
    // site accepted zero amounts and let balances go below zero; such entries are kept as they are,
    // so only imported entries may be zero or take a balance lower while below zero.
    imported: integer("imported", { mode: "boolean" }).notNull().default(false),
    // The `meta_data` object a Rimplenet-dialect client sent with the entry, as JSON text (the
    // plugin kept each of its keys as post meta); NULL when none was sent.
    metaData: text("meta_data"),
    // The hold this DEBIT captured (docs/ledger.md#holds); UNIQUE, so a hold is debited at most once.
    // Its foreign key is a trigger of drizzle/0012_holds.sql (the hold must be captured for this much).
    holdId: integer("hold_id"),
    // The batch this entry was written in (POST /batches), NULL for every other entry. No foreign
    // key: adding one would make drizzle-kit rebuild this table and drop its guarding triggers; the
    // batch row is written in the same D1 batch, before its entries, by the one writer that sets
    // this (ledger/batches.ts appendBatch: a batch, or a batch's reversal).
    batchId: integer("batch_id"),
    // 128 random bits the request that wrote the entry drew for it (ledger/entries.ts): after a
    // batch of unknown outcome, an entry under its request_id is this request's own only if it
    // holds this request's attempt id (ledger/append.ts readBack). Never read out; NULL on
    // imported entries and on those written before 0027.
    attemptId: text("attempt_id"),
  },
  (t) => [
    uniqueIndex("transactions_user_request").on(t.userId, t.requestKey),
    index("transactions_user_created").on(t.userId, t.createdAtS, t.id),
    // A wallet's pages in their (date, id) order, bounded however many entries the user's other
    // wallets hold. A wallet's entries in chain (id) order are balance_timeline's key.
    index("transactions_user_wallet_created").on(t.userId, t.walletId, t.createdAtS, t.id),
    uniqueIndex("transactions_slug").on(t.slug).where(sql`${t.slug} <> ''`),
    uniqueIndex("transactions_guid").on(t.guid).where(sql`${t.guid} <> ''`),
    // Partial, like transactions_hold: a credit or debit (NULL in both) writes no index row to either.
    index("transactions_transfer").on(t.transferId).where(sql`${t.transferId} IS NOT NULL`),
    uniqueIndex("transactions_reverses").on(t.reversesId).where(sql`${t.reversesId} IS NOT NULL`),
    // Partial: the entries no hold names (nearly all) write no index row for it.
    uniqueIndex("transactions_hold").on(t.holdId).where(sql`${t.holdId} IS NOT NULL`),
    // Partial: entries of no batch (nearly all) write no index row to either. The second finds a
    // user's batches (GET /batches) without reading the user's whole history.
    index("transactions_batch").on(t.batchId).where(sql`${t.batchId} IS NOT NULL`),
    index("transactions_user_batch").on(t.userId, t.batchId).where(sql`${t.batchId} IS NOT NULL`),
    check("transactions_txn_type", sql`${t.txnType} IN ('CREDIT', 'DEBIT')`),
    check(
      "transactions_amount_positive",
      sql`${t.amountMinor} > 0 OR (${t.amountMinor} = 0 AND ${t.imported} = 1)`,
    ),
    check(
      "transactions_balance_arithmetic",
      sql`${t.balanceAfterMinor} = ${t.balanceBeforeMinor} + CASE ${t.txnType} WHEN 'CREDIT' THEN ${t.amountMinor} ELSE -${t.amountMinor} END`,
    ),
    // No entry may take a balance lower than it was *and* below zero: a debit needs the money, a
    // credit to a balance below zero is fine (it raises it). Imported entries keep the site's history.
    check(
      "transactions_no_overdraft",
      sql`${t.balanceAfterMinor} >= 0 OR ${t.balanceAfterMinor} >= ${t.balanceBeforeMinor} OR ${t.imported} = 1`,
    ),
    // Balances stay exact JavaScript numbers; the tighter limit that keeps them exact in JSON
    // (±999,999,999,999,999 minor units) is the trigger `transactions_balance_limit` (0024): below
    // zero it judges imported entries only, as any other entry there fails the overdraft CHECK.
    check(
      "transactions_balance_limit",
      sql`${t.balanceAfterMinor} BETWEEN -9007199254740991 AND 9007199254740991`,
    ),
  ],
);

/**
 * A batch of movements written all together or not at all (POST /batches, docs/ledger.md#batches).
 * `request_key` is the caller's request_id folded like an entry's (ledger/request-key.ts): UNIQUE,
 * so a repeated batch fails its D1 batch and writes nothing. A batch's reversal is a batch too,
 * naming the one it reverses (UNIQUE, so a batch is reversed at most once); it has no request key.
 * Rows never change (drizzle/0017_batches.sql): a batch's status is read from whether a reversal
 * names it.
 */
export const batches = sqliteTable(
  "batches",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    requestId: text("request_id").notNull(),
    requestKey: text("request_key"),
    balanced: integer("balanced", { mode: "boolean" }).notNull(),
    /** How many entries the batch wrote: its last one to land completes it (its event's trigger). */
    entryCount: integer("entry_count").notNull(),
    createdAtS: integer("created_at_s").notNull(),
    reversesBatchId: integer("reverses_batch_id").references((): AnySQLiteColumn => batches.id),
  },
  (t) => [
    uniqueIndex("batches_request").on(t.requestKey),
    uniqueIndex("batches_reverses")
      .on(t.reversesBatchId)
      .where(sql`${t.reversesBatchId} IS NOT NULL`),
    check(
      "batches_key_or_reversal",
      sql`(${t.requestKey} IS NULL) = (${t.reversesBatchId} IS NOT NULL)`,
    ),
    check("batches_entry_count", sql`${t.entryCount} BETWEEN 1 AND 200`),
  ],
);

export type BatchRow = typeof batches.$inferSelect;

export const balances = sqliteTable(
  "balances",
  {
    userId: userRef(),
    walletId: walletRef(),
    balanceMinor: integer("balance_minor").notNull(),
    entryCount: integer("entry_count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.walletId] })],
);

/**
 * Each entry's point on its (user, wallet) chain, for balances at a point in time and statements
 * (docs/ledger.md#balances-at-a-point-in-time). `at_s` is the entry's created_at_s, or the chain's
 * latest `at_s` when that is later: an entry written after a later-dated one (a credit held a moment
 * by group commit, a clock behind, an imported post dated before its predecessor) counts from when
 * it joined the chain, so every balance a point-in-time read answers is one the chain really held.
 * `seq` is the entry's place on its chain (1, 2, 3…, the order of writing). The primary key is the
 * chain's time order, so a point-in-time read is one seek and each entry writes one row here. Rows
 * are written only by the trigger `transactions_to_timeline` and never change (drizzle/0010).
 */
export const balanceTimeline = sqliteTable(
  "balance_timeline",
  {
    userId: integer("user_id").notNull(),
    walletId: text("wallet_id").notNull(),
    atS: integer("at_s").notNull(),
    seq: integer("seq").notNull(),
    entryId: integer("entry_id")
      .notNull()
      .references(() => transactions.id),
    balanceAfterMinor: integer("balance_after_minor").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.walletId, t.atS, t.seq] })],
);
// Holds (docs/ledger.md#holds): money reserved now, settled later. A hold counts against the
// available balance while `status` is 'held' and `expires_at_s` is after the instant a writer reads
// it, so an expired hold stops counting with no job; the cron trigger only records it ('expired').
// Each hold leaves 'held' once, for good. Guards that a CHECK cannot express (the available balance,
// one resolution, the request_id shared with entries) are triggers in drizzle/0012_holds.sql.
export const holds = sqliteTable(
  "holds",
  {
    // No AUTOINCREMENT (it reads and writes a sqlite_sequence row per hold): holds are never deleted
    // (trigger holds_no_delete), so the next id, max(id) + 1, is never one used before.
    id: integer("id").primaryKey(),
    userId: userRef(),
    walletId: walletRef(),
    amountMinor: integer("amount_minor").notNull(),
    // The amount as the client sent it, as entries keep theirs.
    amountText: text("amount_text").notNull(),
    requestId: text("request_id").notNull(),
    // request_id folded as an entry's is (ledger/request-key.ts): one key space for entries and holds.
    requestKey: text("request_key").notNull(),
    note: text("note").notNull().default(""),
    status: text("status", { enum: ["held", "captured", "voided", "expired"] }).notNull(),
    // Whole seconds, as entries' dates are: a hold counts while now (in seconds) < expires_at_s.
    createdAtS: integer("created_at_s").notNull(),
    expiresAtS: integer("expires_at_s").notNull(),
    // When it left 'held': the capture or void, or expires_at_s for an expired one.
    resolvedAtS: integer("resolved_at_s"),
    // How much of it a capture debited (its entry names the hold: transactions.hold_id).
    capturedMinor: integer("captured_minor"),
  },
  (t) => [
    uniqueIndex("holds_user_request").on(t.userId, t.requestKey),
    // What the available-balance guards sum: only the holds still 'held', by wallet and expiry.
    index("holds_active")
      .on(t.userId, t.walletId, t.expiresAtS, t.amountMinor)
      .where(sql`${t.status} = 'held'`),
    index("holds_expiry").on(t.expiresAtS).where(sql`${t.status} = 'held'`),
    index("holds_user").on(t.userId, t.id),
    check("holds_status", sql`${t.status} IN ('held', 'captured', 'voided', 'expired')`),
    check("holds_amount_positive", sql`${t.amountMinor} > 0`),
    check("holds_expiry_after_creation", sql`${t.expiresAtS} > ${t.createdAtS}`),
    check(
      "holds_resolution",
      sql`(${t.status} = 'held') = (${t.resolvedAtS} IS NULL) AND (${t.status} = 'captured') = (${t.capturedMinor} IS NOT NULL)`,
    ),
    check(
      "holds_captured_within",
      sql`${t.capturedMinor} IS NULL OR ${t.capturedMinor} BETWEEN 1 AND ${t.amountMinor}`,
    ),
  ],
);
export type Hold = typeof holds.$inferSelect;

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: userRef(),
    name: text("name").notNull(),
    scope: text("scope", { enum: ["read", "write", "read-write"] }).notNull(),
    // SHA-256 of the secret: keys are 256 random bits, so a fast hash is enough and lookups stay cheap.
    keyHash: text("key_hash").notNull(),
    createdAtMs: integer("created_at_ms").notNull(),
    lastUsedAtMs: integer("last_used_at_ms"),
    revokedAtMs: integer("revoked_at_ms"),
  },
  (t) => [
    uniqueIndex("api_keys_hash").on(t.keyHash),
    check("api_keys_scope", sql`${t.scope} IN ('read', 'write', 'read-write')`),
  ],
);

// Sign-in sessions (docs/security.md#sessions): every access token names one by its `sid` claim, and
// is accepted only while its row is here and not revoked. `audience` is the token's `aud`: an API
// token and a console cookie are different kinds. Rows are kept until `expires_at_ms` (the token's
// own `exp`), so a revoked token stays refused for as long as it could verify; src/db/sessions.ts
// prunes a user's expired rows at each of its sign-ins, and the cron's hourly pass the rest.
export const sessions = sqliteTable(
  "sessions",
  {
    // 128 random bits, base64url: not a secret (a token carries it in clear), but unguessable.
    id: text("id").primaryKey(),
    userId: userRef(),
    audience: text("audience", { enum: ["wallet-api", "wallet-console"] }).notNull(),
    createdAtMs: integer("created_at_ms").notNull(),
    expiresAtMs: integer("expires_at_ms").notNull(),
    revokedAtMs: integer("revoked_at_ms"),
  },
  (t) => [
    index("sessions_user_expires").on(t.userId, t.expiresAtMs),
    check("sessions_audience", sql`${t.audience} IN ('wallet-api', 'wallet-console')`),
  ],
);

// One-use links mailed to a user (docs/mail.md): an address verification or a password reset. Only
// the SHA-256 of the token is kept, so the table opens nothing if read. `email` is the address the
// link went to: it works only while that is still the user's address. A use sets `used_at_ms` in
// the same batch that does what the link is for, so two uses cannot both succeed.
export const mailTokens = sqliteTable(
  "mail_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    purpose: text("purpose", { enum: ["verify-email", "password-reset"] }).notNull(),
    // Null for a request no account could use (an unknown address, one already verified): every
    // request for a mail writes one row, so its writes tell nobody whether the address has an account.
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    createdAtMs: integer("created_at_ms").notNull(),
    expiresAtMs: integer("expires_at_ms").notNull(),
    usedAtMs: integer("used_at_ms"),
  },
  (t) => [
    index("mail_tokens_user").on(t.userId, t.purpose, t.expiresAtMs),
    index("mail_tokens_expiry").on(t.expiresAtMs),
    check("mail_tokens_purpose", sql`${t.purpose} IN ('verify-email', 'password-reset')`),
  ],
);

// The dev outbox (MAIL_TRANSPORT=outbox, docs/mail.md): mails kept instead of sent, shown by the
// console at /wallet-admin/outbox. Empty wherever mail really goes out.
export const mailOutbox = sqliteTable("mail_outbox", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  toAddress: text("to_address").notNull(),
  subject: text("subject").notNull(),
  bodyText: text("body_text").notNull(),
  createdAtMs: integer("created_at_ms").notNull(),
});

// The outbox (docs/events.md): one row per committed change, written by triggers in the same
// statement as the change itself (drizzle/0011_events.sql, hand-written part), so no change commits
// without its event and no event exists without its change. `data` is a JSON snapshot of the row as
// it committed (and, for an entry, its wallet's display columns); events/records.ts renders it as
// the record the API answers. Ids only ever grow, so a consumer can resume from the last id it saw:
// events are never deleted (trigger events_no_delete), so max(id) + 1 is never an id used before
// (without AUTOINCREMENT's sqlite_sequence row, one write less per event).
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey(),
    // One of EVENT_TYPES (events/records.ts): transaction.*, user.*, wallet.*, hold.*, batch.*.
    type: text("type").notNull(),
    // What the event is about: a transaction, user, hold or batch id, or a wallet id, as text.
    subject: text("subject").notNull(),
    data: text("data").notNull(),
    createdAtMs: integer("created_at_ms").notNull(),
  },
  // By type for the rarer types only: transaction.created, most events, is listed by id, and its
  // events write no index row (listEvents names the condition so the planner can use it).
  (t) => [index("events_type").on(t.type, t.id).where(sql`${t.type} <> 'transaction.created'`)],
);

// Webhook endpoints (docs/events.md): each is delivered every event of its types after
// `cursor_event_id`, in id order, one at a time; the queue consumer that holds its lease
// (`lease_until_ms`) is the only one delivering it.
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    // The event types it receives, stored comma-separated (`transaction.created,user.created`).
    eventTypes: commaList("event_types").notNull(),
    // The signing secret, AES-GCM encrypted under a key derived from WEBHOOK_SECRET_KEY
    // (events/secrets.ts): the database alone does not give it away.
    secretCipher: text("secret_cipher").notNull(),
    createdAtMs: integer("created_at_ms").notNull(),
    // The last event handled (delivered, or dead-lettered after its attempts); starts at the newest
    // event when the endpoint is created.
    cursorEventId: integer("cursor_event_id").notNull(),
    // Failed attempts at the event after the cursor, and when the next may start (back-off).
    headAttempts: integer("head_attempts").notNull().default(0),
    nextAttemptAtMs: integer("next_attempt_at_ms").notNull().default(0),
    // Who delivers it now: a consumer's random token, until `lease_until_ms`.
    leaseToken: text("lease_token"),
    leaseUntilMs: integer("lease_until_ms").notNull().default(0),
    // Since when its deliveries fail (an event was dead-lettered); NULL: healthy.
    failingSinceMs: integer("failing_since_ms"),
  },
  (t) => [check("webhook_endpoints_attempts", sql`${t.headAttempts} >= 0`)],
);

// Each attempt to deliver an event to an endpoint (and each test or resend), newest kept.
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    endpointId: integer("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    // The event delivered; NULL for a test delivery (no event of the outbox).
    eventId: integer("event_id"),
    attempt: integer("attempt").notNull(),
    // delivered: a 2xx answer; failed: another answer, a timeout or a network error (retried);
    // dead: the last attempt failed, the event was dead-lettered.
    status: text("status", { enum: ["delivered", "failed", "dead"] }).notNull(),
    // queue: the consumer; test: POST /webhooks/{id}/test; resend: an operator's resend.
    trigger: text("trigger", { enum: ["queue", "test", "resend"] }).notNull(),
    httpStatus: integer("http_status"),
    latencyMs: integer("latency_ms").notNull(),
    error: text("error"),
    createdAtMs: integer("created_at_ms").notNull(),
  },
  (t) => [
    index("webhook_deliveries_endpoint").on(t.endpointId, t.id),
    check("webhook_deliveries_status", sql`${t.status} IN ('delivered', 'failed', 'dead')`),
    check("webhook_deliveries_trigger", sql`${t.trigger} IN ('queue', 'test', 'resend')`),
  ],
);

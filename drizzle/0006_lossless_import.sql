-- Issue 12, item 4: an import that loses nothing. A WordPress site's history is carried over as the
-- plugin recorded it: amounts with more places than the wallet displays, zero amounts, and balances
-- that went below zero.
--
-- 1. wallets.extra_decimals: a wallet's storage precision beyond its display decimals. Amounts and
--    balances are integers in units of 10^-(decimals + extra_decimals); 0 (every wallet so far, and
--    every wallet the API creates) keeps them in units of 10^-decimals as before.
-- 2. transactions.imported marks entries the WordPress import wrote. Only those may be zero, or take
--    a balance lower while it is below zero; every other entry keeps the old rules, with one change:
--    a credit to a balance below zero is allowed (it raises it). The overdraft CHECK is now "not
--    lower than it was and below zero". Entries imported before this migration are the ones the
--    import's own check named so (a guid, a site-local date, or a wp-import: request_id).
-- SQLite cannot alter a CHECK, so the table is rebuilt, as drizzle-kit writes it. Triggers on
-- `transactions` go with the old table and are recreated below, unchanged but for the balance limit,
-- which now bounds both signs; the `balances` triggers that read `transactions` are dropped first
-- (no trigger may name a missing table while it is renamed) and recreated unchanged.
-- D1 runs a migration in a transaction, where PRAGMA foreign_keys=OFF does nothing, and checks every
-- foreign key when it commits. So the new table's reverses_id names the new table itself (the rename
-- makes that `transactions`): dropping the old table then leaves no row pointing into it.
ALTER TABLE `wallets` ADD `extra_decimals` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
DROP TRIGGER `balances_follow_ledger_insert`;
--> statement-breakpoint
DROP TRIGGER `balances_follow_ledger_update`;
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_transactions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`wallet_id` text NOT NULL,
	`txn_type` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`amount_text` text NOT NULL,
	`balance_before_minor` integer NOT NULL,
	`balance_after_minor` integer NOT NULL,
	`request_id` text NOT NULL,
	`request_key` text,
	`transfer_id` text,
	`reverses_id` integer,
	`note` text DEFAULT '' NOT NULL,
	`title` text NOT NULL,
	`slug_base` text NOT NULL,
	`slug` text NOT NULL,
	`created_at_s` integer NOT NULL,
	`guid` text,
	`local_date` text,
	`modified_local_date` text,
	`modified_gmt_date` text,
	`imported` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`wallet_id`) REFERENCES `wallets`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`reverses_id`) REFERENCES `__new_transactions`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "transactions_txn_type" CHECK("__new_transactions"."txn_type" IN ('CREDIT', 'DEBIT')),
	CONSTRAINT "transactions_amount_positive" CHECK("__new_transactions"."amount_minor" > 0 OR ("__new_transactions"."amount_minor" = 0 AND "__new_transactions"."imported" = 1)),
	CONSTRAINT "transactions_balance_arithmetic" CHECK("__new_transactions"."balance_after_minor" = "__new_transactions"."balance_before_minor" + CASE "__new_transactions"."txn_type" WHEN 'CREDIT' THEN "__new_transactions"."amount_minor" ELSE -"__new_transactions"."amount_minor" END),
	CONSTRAINT "transactions_no_overdraft" CHECK("__new_transactions"."balance_after_minor" >= 0 OR "__new_transactions"."balance_after_minor" >= "__new_transactions"."balance_before_minor" OR "__new_transactions"."imported" = 1),
	CONSTRAINT "transactions_balance_limit" CHECK("__new_transactions"."balance_after_minor" BETWEEN -9007199254740991 AND 9007199254740991)
);
--> statement-breakpoint
INSERT INTO `__new_transactions`("id", "user_id", "wallet_id", "txn_type", "amount_minor", "amount_text", "balance_before_minor", "balance_after_minor", "request_id", "request_key", "transfer_id", "reverses_id", "note", "title", "slug_base", "slug", "created_at_s", "guid", "local_date", "modified_local_date", "modified_gmt_date", "imported") SELECT "id", "user_id", "wallet_id", "txn_type", "amount_minor", "amount_text", "balance_before_minor", "balance_after_minor", "request_id", "request_key", "transfer_id", "reverses_id", "note", "title", "slug_base", "slug", "created_at_s", "guid", "local_date", "modified_local_date", "modified_gmt_date", ("local_date" IS NOT NULL OR "guid" IS NOT NULL OR coalesce("request_key", '') LIKE 'wp-import:%') FROM `transactions` ORDER BY "id";--> statement-breakpoint
DROP TABLE `transactions`;--> statement-breakpoint
ALTER TABLE `__new_transactions` RENAME TO `transactions`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_user_request` ON `transactions` (`user_id`,`request_key`);--> statement-breakpoint
CREATE INDEX `transactions_user_created` ON `transactions` (`user_id`,`created_at_s`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_balance_chain` ON `transactions` (`user_id`,`wallet_id`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_slug_base` ON `transactions` (`slug_base`);--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_slug` ON `transactions` (`slug`) WHERE "transactions"."slug" <> '';--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_guid` ON `transactions` (`guid`) WHERE "transactions"."guid" <> '';--> statement-breakpoint
CREATE INDEX `transactions_transfer` ON `transactions` (`transfer_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_reverses` ON `transactions` (`reverses_id`);--> statement-breakpoint
--> statement-breakpoint
-- 0001: each entry continues its (user, wallet) chain; the balance row is the chain's head, written
-- only by the entry's trigger; the ledger is append-only; a balance is its newest entry's balance_after.
CREATE TRIGGER `transactions_chain_guard` BEFORE INSERT ON `transactions`
WHEN NEW.`balance_before_minor` IS NOT coalesce(
  (SELECT `balance_minor` FROM `balances` WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`), 0)
BEGIN
  SELECT RAISE(ABORT, 'ledger_chain_broken');
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_apply_to_balance` AFTER INSERT ON `transactions`
BEGIN
  INSERT INTO `balances` (`user_id`, `wallet_id`, `balance_minor`, `entry_count`)
  VALUES (NEW.`user_id`, NEW.`wallet_id`, NEW.`balance_after_minor`, 1)
  ON CONFLICT (`user_id`, `wallet_id`) DO UPDATE
    SET `balance_minor` = excluded.`balance_minor`, `entry_count` = `entry_count` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_no_update` BEFORE UPDATE ON `transactions`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_no_delete` BEFORE DELETE ON `transactions`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER `balances_follow_ledger_insert` BEFORE INSERT ON `balances`
WHEN NEW.`balance_minor` IS NOT (
  SELECT `balance_after_minor` FROM `transactions`
  WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id` ORDER BY `id` DESC LIMIT 1)
BEGIN
  SELECT RAISE(ABORT, 'balance_off_ledger');
END;
--> statement-breakpoint
CREATE TRIGGER `balances_follow_ledger_update` BEFORE UPDATE ON `balances`
WHEN NEW.`balance_minor` IS NOT (
  SELECT `balance_after_minor` FROM `transactions`
  WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id` ORDER BY `id` DESC LIMIT 1)
BEGIN
  SELECT RAISE(ABORT, 'balance_off_ledger');
END;
--> statement-breakpoint
-- 0003, both signs now: every balance prints exactly as a JSON number (at most 15 digits).
CREATE TRIGGER `transactions_balance_limit` BEFORE INSERT ON `transactions`
WHEN NEW.`balance_after_minor` NOT BETWEEN -999999999999999 AND 999999999999999
BEGIN
  SELECT RAISE(ABORT, 'transactions_balance_limit');
END;
--> statement-breakpoint
-- 0004: no INSERT OR REPLACE over an entry; a second reversal refused by name.
CREATE TRIGGER `transactions_no_replace` BEFORE INSERT ON `transactions`
WHEN EXISTS (SELECT 1 FROM `transactions` WHERE `id` = NEW.`id`)
  OR EXISTS (SELECT 1 FROM `transactions` WHERE `user_id` = NEW.`user_id` AND `request_key` = NEW.`request_key`)
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_reversed_once` BEFORE INSERT ON `transactions`
WHEN NEW.`reverses_id` IS NOT NULL AND EXISTS (SELECT 1 FROM `transactions` WHERE `reverses_id` = NEW.`reverses_id`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_reverses');
END;
--> statement-breakpoint
-- 0005: every key is its request_id with A-Z folded (src/ledger/request-key.ts).
CREATE TRIGGER `transactions_request_key_folded` BEFORE INSERT ON `transactions`
WHEN NEW.`request_key` IS NOT NULL AND NEW.`request_key` IS NOT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(NEW.`request_id`, 'A', 'a'), 'B', 'b'), 'C', 'c'), 'D', 'd'), 'E', 'e'), 'F', 'f'), 'G', 'g'), 'H', 'h'), 'I', 'i'), 'J', 'j'), 'K', 'k'), 'L', 'l'), 'M', 'm'), 'N', 'n'), 'O', 'o'), 'P', 'p'), 'Q', 'q'), 'R', 'r'), 'S', 's'), 'T', 't'), 'U', 'u'), 'V', 'v'), 'W', 'w'), 'X', 'x'), 'Y', 'y'), 'Z', 'z')
BEGIN
  SELECT RAISE(ABORT, 'transactions_request_key_fold');
END;
--> statement-breakpoint
-- A wallet's storage precision is its display decimals plus 0 or more places, at most 15 in all (a
-- balance keeps 15 digits); neither ever changes, since every stored amount is counted in its units.
CREATE TRIGGER `wallets_extra_decimals` BEFORE INSERT ON `wallets`
WHEN NEW.`extra_decimals` < 0 OR NEW.`decimals` + NEW.`extra_decimals` > 15
BEGIN
  SELECT RAISE(ABORT, 'wallets_extra_decimals');
END;
--> statement-breakpoint
CREATE TRIGGER `wallets_units_fixed` BEFORE UPDATE OF `decimals`, `extra_decimals` ON `wallets`
WHEN NEW.`decimals` IS NOT OLD.`decimals` OR NEW.`extra_decimals` IS NOT OLD.`extra_decimals`
BEGIN
  SELECT RAISE(ABORT, 'wallets_units_fixed');
END;

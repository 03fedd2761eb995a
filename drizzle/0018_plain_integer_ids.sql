-- hand-written around drizzle-kit's rebuild: entries and events without AUTOINCREMENT, which wrote a
-- sqlite_sequence row for every entry and every event (two of a credit's eleven rows written). Ids
-- still only grow: neither table's rows can be deleted (transactions_no_delete, events_no_delete),
-- so max(id) + 1 is never an id used before. The events' type index leaves out transaction.created
-- (most events; listed by id).
-- A rebuild drops the old table's triggers, and renaming the new one checks every trigger that
-- names it, so each trigger naming either table (and the timeline's) is dropped first and created
-- again, text for text, at the end. D1 runs a migration in one transaction, where PRAGMA
-- foreign_keys=OFF does nothing, and counts a parent row deleted under its children as a broken key:
-- so, as in 0006, the new entries table names itself in reverses_id, and the balance timeline (whose
-- entry_id names an entry) is rebuilt unchanged onto the new table before the old one is dropped.
-- The renames make both names what they were.
--> statement-breakpoint
DROP TRIGGER `transactions_chain_guard`;
--> statement-breakpoint
DROP TRIGGER `transactions_apply_to_balance`;
--> statement-breakpoint
DROP TRIGGER `transactions_no_update`;
--> statement-breakpoint
DROP TRIGGER `transactions_no_delete`;
--> statement-breakpoint
DROP TRIGGER `balances_follow_ledger_insert`;
--> statement-breakpoint
DROP TRIGGER `balances_follow_ledger_update`;
--> statement-breakpoint
DROP TRIGGER `transactions_balance_limit`;
--> statement-breakpoint
DROP TRIGGER `transactions_no_replace`;
--> statement-breakpoint
DROP TRIGGER `transactions_reversed_once`;
--> statement-breakpoint
DROP TRIGGER `transactions_request_key_folded`;
--> statement-breakpoint
DROP TRIGGER `transactions_to_timeline`;
--> statement-breakpoint
DROP TRIGGER `balance_timeline_follows_ledger`;
--> statement-breakpoint
DROP TRIGGER `balance_timeline_no_update`;
--> statement-breakpoint
DROP TRIGGER `balance_timeline_no_delete`;
--> statement-breakpoint
DROP TRIGGER `events_transaction_created`;
--> statement-breakpoint
DROP TRIGGER `events_user_created`;
--> statement-breakpoint
DROP TRIGGER `events_wallet_created`;
--> statement-breakpoint
DROP TRIGGER `events_no_update`;
--> statement-breakpoint
DROP TRIGGER `holds_placed_once`;
--> statement-breakpoint
DROP TRIGGER `transactions_request_key_free`;
--> statement-breakpoint
DROP TRIGGER `transactions_within_available`;
--> statement-breakpoint
DROP TRIGGER `transactions_hold_captured`;
--> statement-breakpoint
DROP TRIGGER `events_hold_placed`;
--> statement-breakpoint
DROP TRIGGER `events_hold_resolved`;
--> statement-breakpoint
DROP TRIGGER `events_hold_captured`;
--> statement-breakpoint
DROP TRIGGER `transactions_batch_known`;
--> statement-breakpoint
DROP TRIGGER `events_batch_written`;
--> statement-breakpoint
CREATE TABLE `__new_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`subject` text NOT NULL,
	`data` text NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_events`("id", "type", "subject", "data", "created_at_ms") SELECT "id", "type", "subject", "data", "created_at_ms" FROM `events`;
--> statement-breakpoint
DROP TABLE `events`;
--> statement-breakpoint
ALTER TABLE `__new_events` RENAME TO `events`;
--> statement-breakpoint
CREATE INDEX `events_type` ON `events` (`type`,`id`) WHERE "events"."type" <> 'transaction.created';
--> statement-breakpoint
CREATE TABLE `__new_transactions` (
	`id` integer PRIMARY KEY NOT NULL,
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
	`meta_data` text,
	`hold_id` integer,
	`batch_id` integer,
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
INSERT INTO `__new_transactions`("id", "user_id", "wallet_id", "txn_type", "amount_minor", "amount_text", "balance_before_minor", "balance_after_minor", "request_id", "request_key", "transfer_id", "reverses_id", "note", "title", "slug_base", "slug", "created_at_s", "guid", "local_date", "modified_local_date", "modified_gmt_date", "imported", "meta_data", "hold_id", "batch_id") SELECT "id", "user_id", "wallet_id", "txn_type", "amount_minor", "amount_text", "balance_before_minor", "balance_after_minor", "request_id", "request_key", "transfer_id", "reverses_id", "note", "title", "slug_base", "slug", "created_at_s", "guid", "local_date", "modified_local_date", "modified_gmt_date", "imported", "meta_data", "hold_id", "batch_id" FROM `transactions`;
--> statement-breakpoint
CREATE TABLE `__new_balance_timeline` (
	`user_id` integer NOT NULL,
	`wallet_id` text NOT NULL,
	`at_s` integer NOT NULL,
	`seq` integer NOT NULL,
	`entry_id` integer NOT NULL,
	`balance_after_minor` integer NOT NULL,
	PRIMARY KEY(`user_id`, `wallet_id`, `at_s`, `seq`),
	FOREIGN KEY (`entry_id`) REFERENCES `__new_transactions`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_balance_timeline` SELECT `user_id`, `wallet_id`, `at_s`, `seq`, `entry_id`, `balance_after_minor` FROM `balance_timeline`;
--> statement-breakpoint
DROP TABLE `balance_timeline`;
--> statement-breakpoint
DROP TABLE `transactions`;
--> statement-breakpoint
ALTER TABLE `__new_transactions` RENAME TO `transactions`;
--> statement-breakpoint
ALTER TABLE `__new_balance_timeline` RENAME TO `balance_timeline`;
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_user_request` ON `transactions` (`user_id`,`request_key`);
--> statement-breakpoint
CREATE INDEX `transactions_user_created` ON `transactions` (`user_id`,`created_at_s`,`id`);
--> statement-breakpoint
CREATE INDEX `transactions_balance_chain` ON `transactions` (`user_id`,`wallet_id`,`id`);
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_slug` ON `transactions` (`slug`) WHERE "transactions"."slug" <> '';
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_guid` ON `transactions` (`guid`) WHERE "transactions"."guid" <> '';
--> statement-breakpoint
CREATE INDEX `transactions_transfer` ON `transactions` (`transfer_id`) WHERE "transactions"."transfer_id" IS NOT NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_reverses` ON `transactions` (`reverses_id`) WHERE "transactions"."reverses_id" IS NOT NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_hold` ON `transactions` (`hold_id`) WHERE "transactions"."hold_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `transactions_batch` ON `transactions` (`batch_id`) WHERE "transactions"."batch_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `transactions_user_batch` ON `transactions` (`user_id`,`batch_id`) WHERE "transactions"."batch_id" IS NOT NULL;
--> statement-breakpoint
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
CREATE TRIGGER `transactions_balance_limit` BEFORE INSERT ON `transactions`
WHEN NEW.`balance_after_minor` NOT BETWEEN -999999999999999 AND 999999999999999
BEGIN
  SELECT RAISE(ABORT, 'transactions_balance_limit');
END;
--> statement-breakpoint
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
CREATE TRIGGER `transactions_request_key_folded` BEFORE INSERT ON `transactions`
WHEN NEW.`request_key` IS NOT NULL AND NEW.`request_key` IS NOT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(NEW.`request_id`, 'A', 'a'), 'B', 'b'), 'C', 'c'), 'D', 'd'), 'E', 'e'), 'F', 'f'), 'G', 'g'), 'H', 'h'), 'I', 'i'), 'J', 'j'), 'K', 'k'), 'L', 'l'), 'M', 'm'), 'N', 'n'), 'O', 'o'), 'P', 'p'), 'Q', 'q'), 'R', 'r'), 'S', 's'), 'T', 't'), 'U', 'u'), 'V', 'v'), 'W', 'w'), 'X', 'x'), 'Y', 'y'), 'Z', 'z')
BEGIN
  SELECT RAISE(ABORT, 'transactions_request_key_fold');
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_to_timeline` AFTER INSERT ON `transactions`
BEGIN
  INSERT INTO `balance_timeline` (`user_id`, `wallet_id`, `at_s`, `seq`, `entry_id`, `balance_after_minor`)
  VALUES (NEW.`user_id`, NEW.`wallet_id`,
    max(NEW.`created_at_s`, coalesce((SELECT `at_s` FROM `balance_timeline`
      WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`
      ORDER BY `at_s` DESC, `seq` DESC LIMIT 1), NEW.`created_at_s`)),
    coalesce((SELECT `seq` FROM `balance_timeline`
      WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`
      ORDER BY `at_s` DESC, `seq` DESC LIMIT 1), 0) + 1,
    NEW.`id`, NEW.`balance_after_minor`);
END;
--> statement-breakpoint
CREATE TRIGGER `balance_timeline_follows_ledger` BEFORE INSERT ON `balance_timeline`
WHEN NOT EXISTS (
    SELECT 1 FROM `transactions` WHERE `id` = NEW.`entry_id` AND `user_id` = NEW.`user_id`
      AND `wallet_id` = NEW.`wallet_id` AND `balance_after_minor` = NEW.`balance_after_minor`
      AND `created_at_s` <= NEW.`at_s`
      AND `balance_before_minor` = coalesce((SELECT `balance_after_minor` FROM `balance_timeline`
        WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`
        ORDER BY `at_s` DESC, `seq` DESC LIMIT 1), 0))
  OR NEW.`seq` IS NOT coalesce((SELECT `seq` FROM `balance_timeline`
    WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`
    ORDER BY `at_s` DESC, `seq` DESC LIMIT 1), 0) + 1
  OR NEW.`at_s` < coalesce((SELECT `at_s` FROM `balance_timeline`
    WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`
    ORDER BY `at_s` DESC, `seq` DESC LIMIT 1), NEW.`at_s`)
  OR NEW.`entry_id` IS (SELECT `entry_id` FROM `balance_timeline`
    WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`
    ORDER BY `at_s` DESC, `seq` DESC LIMIT 1)
BEGIN
  SELECT RAISE(ABORT, 'timeline_off_ledger');
END;
--> statement-breakpoint
CREATE TRIGGER `balance_timeline_no_update` BEFORE UPDATE ON `balance_timeline`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER `balance_timeline_no_delete` BEFORE DELETE ON `balance_timeline`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER `events_transaction_created` AFTER INSERT ON `transactions`
WHEN NEW.`imported` = 0
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  SELECT 'transaction.created', CAST(NEW.`id` AS TEXT), json_set(json_object(
      'id', NEW.`id`, 'user_id', NEW.`user_id`, 'wallet_id', NEW.`wallet_id`,
      'txn_type', NEW.`txn_type`, 'amount_minor', NEW.`amount_minor`, 'amount_text', NEW.`amount_text`,
      'balance_after_minor', NEW.`balance_after_minor`, 'request_id', NEW.`request_id`,
      'transfer_id', NEW.`transfer_id`, 'reverses_id', NEW.`reverses_id`, 'note', NEW.`note`,
      'title', NEW.`title`, 'slug', NEW.`slug`, 'guid', NEW.`guid`, 'created_at_s', NEW.`created_at_s`,
      'symbol', w.`symbol`),
      '$.symbol_position', w.`symbol_position`, '$.decimals', w.`decimals`,
      '$.extra_decimals', w.`extra_decimals`),
    NEW.`created_at_s` * 1000
  FROM `wallets` w WHERE w.`id` = NEW.`wallet_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `events_user_created` AFTER INSERT ON `users`
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  VALUES ('user.created', CAST(NEW.`id` AS TEXT), json_object(
      'id', NEW.`id`, 'username', NEW.`username`, 'email', NEW.`email`,
      'first_name', NEW.`first_name`, 'last_name', NEW.`last_name`, 'role', NEW.`role`,
      'registered_at_ms', NEW.`registered_at_ms`),
    NEW.`registered_at_ms`);
END;
--> statement-breakpoint
CREATE TRIGGER `events_wallet_created` AFTER INSERT ON `wallets`
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  VALUES ('wallet.created', NEW.`id`, json_object(
      'id', NEW.`id`, 'name', NEW.`name`, 'symbol', NEW.`symbol`,
      'symbol_position', NEW.`symbol_position`, 'decimals', NEW.`decimals`, 'type', NEW.`type`,
      'note', NEW.`note`, 'created_at_ms', NEW.`created_at_ms`),
    NEW.`created_at_ms`);
END;
--> statement-breakpoint
CREATE TRIGGER `events_no_update` BEFORE UPDATE ON `events`
BEGIN
  SELECT RAISE(ABORT, 'events_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER `holds_placed_once` BEFORE INSERT ON `holds`
WHEN NEW.`status` IS NOT 'held' OR NEW.`resolved_at_s` IS NOT NULL OR NEW.`captured_minor` IS NOT NULL
  OR EXISTS (SELECT 1 FROM `holds` WHERE `id` = NEW.`id`)
  OR EXISTS (SELECT 1 FROM `holds` WHERE `user_id` = NEW.`user_id` AND `request_key` = NEW.`request_key`)
  OR EXISTS (SELECT 1 FROM `transactions` WHERE `user_id` = NEW.`user_id` AND `request_key` = NEW.`request_key`)
  OR NEW.`request_key` IS NOT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(NEW.`request_id`, 'A', 'a'), 'B', 'b'), 'C', 'c'), 'D', 'd'), 'E', 'e'), 'F', 'f'), 'G', 'g'), 'H', 'h'), 'I', 'i'), 'J', 'j'), 'K', 'k'), 'L', 'l'), 'M', 'm'), 'N', 'n'), 'O', 'o'), 'P', 'p'), 'Q', 'q'), 'R', 'r'), 'S', 's'), 'T', 't'), 'U', 'u'), 'V', 'v'), 'W', 'w'), 'X', 'x'), 'Y', 'y'), 'Z', 'z')
BEGIN
  SELECT RAISE(ABORT, 'holds_placed_once');
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_request_key_free` BEFORE INSERT ON `transactions`
WHEN NEW.`request_key` IS NOT NULL
  AND EXISTS (SELECT 1 FROM `holds` WHERE `user_id` = NEW.`user_id` AND `request_key` = NEW.`request_key`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_request_key_free');
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_within_available` BEFORE INSERT ON `transactions`
WHEN NEW.`imported` = 0 AND NEW.`balance_after_minor` >= 0
  AND NEW.`balance_after_minor` < NEW.`balance_before_minor`
  AND NEW.`balance_after_minor` < (SELECT coalesce(sum(`amount_minor`), 0) FROM `holds`
     WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id` AND `status` = 'held' AND `expires_at_s` > NEW.`created_at_s`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_within_available');
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_hold_captured` BEFORE INSERT ON `transactions`
WHEN NEW.`hold_id` IS NOT NULL AND NOT EXISTS (SELECT 1 FROM `holds`
  WHERE `id` = NEW.`hold_id` AND `status` = 'captured' AND `user_id` = NEW.`user_id`
    AND `wallet_id` = NEW.`wallet_id` AND `captured_minor` = NEW.`amount_minor` AND NEW.`txn_type` = 'DEBIT')
BEGIN
  SELECT RAISE(ABORT, 'transactions_hold_captured');
END;
--> statement-breakpoint
CREATE TRIGGER `events_hold_placed` AFTER INSERT ON `holds`
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  SELECT 'hold.placed', CAST(NEW.`id` AS TEXT), json_object(
      'id', NEW.`id`, 'user_id', NEW.`user_id`, 'wallet_id', NEW.`wallet_id`,
      'amount_minor', NEW.`amount_minor`, 'request_id', NEW.`request_id`, 'note', NEW.`note`,
      'status', NEW.`status`, 'created_at_s', NEW.`created_at_s`, 'expires_at_s', NEW.`expires_at_s`,
      'resolved_at_s', NEW.`resolved_at_s`, 'captured_minor', NEW.`captured_minor`,
      'transaction_id', NULL,
      'symbol', w.`symbol`, 'symbol_position', w.`symbol_position`, 'decimals', w.`decimals`,
      'extra_decimals', w.`extra_decimals`),
    NEW.`created_at_s` * 1000
  FROM `wallets` w WHERE w.`id` = NEW.`wallet_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `events_hold_resolved` AFTER UPDATE OF `status` ON `holds`
WHEN NEW.`status` IN ('voided', 'expired') AND OLD.`status` = 'held'
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  SELECT 'hold.' || NEW.`status`, CAST(NEW.`id` AS TEXT), json_object(
      'id', NEW.`id`, 'user_id', NEW.`user_id`, 'wallet_id', NEW.`wallet_id`,
      'amount_minor', NEW.`amount_minor`, 'request_id', NEW.`request_id`, 'note', NEW.`note`,
      'status', NEW.`status`, 'created_at_s', NEW.`created_at_s`, 'expires_at_s', NEW.`expires_at_s`,
      'resolved_at_s', NEW.`resolved_at_s`, 'captured_minor', NEW.`captured_minor`,
      'transaction_id', NULL,
      'symbol', w.`symbol`, 'symbol_position', w.`symbol_position`, 'decimals', w.`decimals`,
      'extra_decimals', w.`extra_decimals`),
    coalesce(NEW.`resolved_at_s`, NEW.`expires_at_s`) * 1000
  FROM `wallets` w WHERE w.`id` = NEW.`wallet_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `events_hold_captured` AFTER INSERT ON `transactions`
WHEN NEW.`hold_id` IS NOT NULL
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  SELECT 'hold.captured', CAST(h.`id` AS TEXT), json_object(
      'id', h.`id`, 'user_id', h.`user_id`, 'wallet_id', h.`wallet_id`,
      'amount_minor', h.`amount_minor`, 'request_id', h.`request_id`, 'note', h.`note`,
      'status', h.`status`, 'created_at_s', h.`created_at_s`, 'expires_at_s', h.`expires_at_s`,
      'resolved_at_s', h.`resolved_at_s`, 'captured_minor', h.`captured_minor`,
      'transaction_id', NEW.`id`,
      'symbol', w.`symbol`, 'symbol_position', w.`symbol_position`, 'decimals', w.`decimals`,
      'extra_decimals', w.`extra_decimals`),
    coalesce(h.`resolved_at_s`, NEW.`created_at_s`) * 1000
  FROM `holds` h JOIN `wallets` w ON w.`id` = h.`wallet_id` WHERE h.`id` = NEW.`hold_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_batch_known` BEFORE INSERT ON `transactions`
WHEN NEW.`batch_id` IS NOT NULL AND coalesce((SELECT `entry_count` FROM `batches` WHERE `id` = NEW.`batch_id`), 0)
  <= (SELECT count(*) FROM `transactions` WHERE `batch_id` = NEW.`batch_id`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_batch_known');
END;
--> statement-breakpoint
CREATE TRIGGER `events_batch_written` AFTER INSERT ON `transactions`
WHEN NEW.`batch_id` IS NOT NULL
  AND (SELECT count(*) FROM `transactions` WHERE `batch_id` = NEW.`batch_id`)
    = (SELECT `entry_count` FROM `batches` WHERE `id` = NEW.`batch_id`)
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  SELECT CASE WHEN b.`reverses_batch_id` IS NULL THEN 'batch.completed' ELSE 'batch.reversed' END,
    CAST(o.`id` AS TEXT),
    json_object(
      'id', o.`id`, 'request_id', o.`request_id`, 'balanced', o.`balanced`,
      'created_at_s', o.`created_at_s`,
      'reversal_batch_id', CASE WHEN b.`reverses_batch_id` IS NULL THEN NULL ELSE b.`id` END,
      'entries', (SELECT json_group_array(json(x.`snapshot`)) FROM (
        SELECT json_set(json_object(
            'id', t.`id`, 'user_id', t.`user_id`, 'wallet_id', t.`wallet_id`,
            'txn_type', t.`txn_type`, 'amount_minor', t.`amount_minor`, 'amount_text', t.`amount_text`,
            'balance_after_minor', t.`balance_after_minor`, 'request_id', t.`request_id`,
            'transfer_id', t.`transfer_id`, 'reverses_id', t.`reverses_id`, 'note', t.`note`,
            'title', t.`title`, 'slug', t.`slug`, 'guid', t.`guid`, 'created_at_s', t.`created_at_s`,
            'batch_id', t.`batch_id`),
            '$.symbol', w.`symbol`, '$.symbol_position', w.`symbol_position`, '$.decimals', w.`decimals`,
            '$.extra_decimals', w.`extra_decimals`) AS `snapshot`
        FROM `transactions` t JOIN `wallets` w ON w.`id` = t.`wallet_id`
        WHERE t.`batch_id` = o.`id` ORDER BY t.`id`) x)),
    NEW.`created_at_s` * 1000
  FROM `batches` b JOIN `batches` o ON o.`id` = coalesce(b.`reverses_batch_id`, b.`id`)
  WHERE b.`id` = NEW.`batch_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `events_no_delete` BEFORE DELETE ON `events`
BEGIN
  SELECT RAISE(ABORT, 'events_append_only');
END;

-- hand-written around drizzle-kit's rebuild: holds without AUTOINCREMENT, which read sqlite_sequence
-- up to the holds row (2 to 8 rows, in the order the AUTOINCREMENT tables got their first row) and
-- wrote that row for every hold placed, as 0018 did for entries and events. Ids still only grow:
-- holds cannot be deleted (holds_no_delete), so max(id) + 1 is never an id used before. Dropping
-- the old table drops its sqlite_sequence row.
-- Dropping the old table drops its triggers, and renaming the new one checks every trigger that
-- names it, so each trigger on holds or naming it is dropped first and made again, text for text,
-- at the end, in the order they were made: with them every later trigger on transactions, so each
-- table's triggers still run in the order they did (SQLite runs them newest first, and a refusal
-- names the first that fires). No foreign key names holds, so dropping it breaks none; D1 runs a
-- migration in one transaction, where drizzle-kit's PRAGMA foreign_keys=OFF does nothing, so it is
-- left out, as in 0018.
--> statement-breakpoint
DROP TRIGGER `holds_within_available`;
--> statement-breakpoint
DROP TRIGGER `holds_resolved_once`;
--> statement-breakpoint
DROP TRIGGER `holds_no_delete`;
--> statement-breakpoint
DROP TRIGGER `holds_placed_once`;
--> statement-breakpoint
DROP TRIGGER `events_hold_placed`;
--> statement-breakpoint
DROP TRIGGER `events_hold_resolved`;
--> statement-breakpoint
DROP TRIGGER `transactions_request_key_free`;
--> statement-breakpoint
DROP TRIGGER `transactions_within_available`;
--> statement-breakpoint
DROP TRIGGER `transactions_hold_captured`;
--> statement-breakpoint
DROP TRIGGER `transactions_batch_known`;
--> statement-breakpoint
DROP TRIGGER `transactions_import_under_hold`;
--> statement-breakpoint
DROP TRIGGER `transactions_to_timeline`;
--> statement-breakpoint
DROP TRIGGER `events_of_entry`;
--> statement-breakpoint
CREATE TABLE `__new_holds` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`wallet_id` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`amount_text` text NOT NULL,
	`request_id` text NOT NULL,
	`request_key` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`status` text NOT NULL,
	`created_at_s` integer NOT NULL,
	`expires_at_s` integer NOT NULL,
	`resolved_at_s` integer,
	`captured_minor` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`wallet_id`) REFERENCES `wallets`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "holds_status" CHECK("__new_holds"."status" IN ('held', 'captured', 'voided', 'expired')),
	CONSTRAINT "holds_amount_positive" CHECK("__new_holds"."amount_minor" > 0),
	CONSTRAINT "holds_expiry_after_creation" CHECK("__new_holds"."expires_at_s" > "__new_holds"."created_at_s"),
	CONSTRAINT "holds_resolution" CHECK(("__new_holds"."status" = 'held') = ("__new_holds"."resolved_at_s" IS NULL) AND ("__new_holds"."status" = 'captured') = ("__new_holds"."captured_minor" IS NOT NULL)),
	CONSTRAINT "holds_captured_within" CHECK("__new_holds"."captured_minor" IS NULL OR "__new_holds"."captured_minor" BETWEEN 1 AND "__new_holds"."amount_minor")
);
--> statement-breakpoint
INSERT INTO `__new_holds`("id", "user_id", "wallet_id", "amount_minor", "amount_text", "request_id", "request_key", "note", "status", "created_at_s", "expires_at_s", "resolved_at_s", "captured_minor") SELECT "id", "user_id", "wallet_id", "amount_minor", "amount_text", "request_id", "request_key", "note", "status", "created_at_s", "expires_at_s", "resolved_at_s", "captured_minor" FROM `holds`;
--> statement-breakpoint
DROP TABLE `holds`;
--> statement-breakpoint
ALTER TABLE `__new_holds` RENAME TO `holds`;
--> statement-breakpoint
CREATE UNIQUE INDEX `holds_user_request` ON `holds` (`user_id`,`request_key`);
--> statement-breakpoint
CREATE INDEX `holds_active` ON `holds` (`user_id`,`wallet_id`,`expires_at_s`,`amount_minor`) WHERE "holds"."status" = 'held';
--> statement-breakpoint
CREATE INDEX `holds_expiry` ON `holds` (`expires_at_s`) WHERE "holds"."status" = 'held';
--> statement-breakpoint
CREATE INDEX `holds_user` ON `holds` (`user_id`,`id`);
--> statement-breakpoint
CREATE TRIGGER `holds_within_available` BEFORE INSERT ON `holds`
WHEN NEW.`amount_minor` > coalesce((SELECT `balance_minor` FROM `balances` WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`), 0)
  - (SELECT coalesce(sum(`amount_minor`), 0) FROM `holds`
     WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id` AND `status` = 'held' AND `expires_at_s` > NEW.`created_at_s`)
BEGIN
  SELECT RAISE(ABORT, 'holds_within_available');
END;
--> statement-breakpoint
CREATE TRIGGER `holds_resolved_once` BEFORE UPDATE ON `holds`
WHEN OLD.`status` IS NOT 'held' OR NEW.`status` IS 'held'
  OR NEW.`id` IS NOT OLD.`id` OR NEW.`user_id` IS NOT OLD.`user_id` OR NEW.`wallet_id` IS NOT OLD.`wallet_id`
  OR NEW.`amount_minor` IS NOT OLD.`amount_minor` OR NEW.`amount_text` IS NOT OLD.`amount_text`
  OR NEW.`request_id` IS NOT OLD.`request_id` OR NEW.`request_key` IS NOT OLD.`request_key`
  OR NEW.`note` IS NOT OLD.`note` OR NEW.`created_at_s` IS NOT OLD.`created_at_s`
  OR NEW.`expires_at_s` IS NOT OLD.`expires_at_s`
  OR (NEW.`status` = 'expired') IS NOT (NEW.`resolved_at_s` >= OLD.`expires_at_s`)
BEGIN
  SELECT RAISE(ABORT, 'holds_resolved_once');
END;
--> statement-breakpoint
CREATE TRIGGER `holds_no_delete` BEFORE DELETE ON `holds`
BEGIN
  SELECT RAISE(ABORT, 'holds_resolved_once');
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
CREATE TRIGGER `transactions_batch_known` BEFORE INSERT ON `transactions`
WHEN NEW.`batch_id` IS NOT NULL AND coalesce((SELECT `entry_count` FROM `batches` WHERE `id` = NEW.`batch_id`), 0)
  <= (SELECT count(*) FROM `transactions` WHERE `batch_id` = NEW.`batch_id`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_batch_known');
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_import_under_hold` BEFORE INSERT ON `transactions`
WHEN NEW.`imported` = 1
  AND EXISTS (SELECT 1 FROM `holds` WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_import_under_hold');
END;
--> statement-breakpoint
CREATE TRIGGER `transactions_to_timeline` AFTER INSERT ON `transactions`
BEGIN
  INSERT INTO `balance_timeline` (`user_id`, `wallet_id`, `at_s`, `seq`, `entry_id`, `balance_after_minor`)
  SELECT NEW.`user_id`, NEW.`wallet_id`, max(NEW.`created_at_s`, coalesce(max(p.`at_s`), NEW.`created_at_s`)),
    coalesce(max(p.`seq`), 0) + 1, NEW.`id`, NEW.`balance_after_minor`
  FROM (SELECT `at_s`, `seq` FROM `balance_timeline`
    WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`
    ORDER BY `at_s` DESC, `seq` DESC LIMIT 1) p;
END;
--> statement-breakpoint
CREATE TRIGGER `events_of_entry` AFTER INSERT ON `transactions`
WHEN NEW.`imported` = 0 OR NEW.`hold_id` IS NOT NULL OR NEW.`batch_id` IS NOT NULL
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
  FROM `wallets` w WHERE NEW.`imported` = 0 AND w.`id` = NEW.`wallet_id`;
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
  FROM `holds` h JOIN `wallets` w ON w.`id` = h.`wallet_id` WHERE NEW.`hold_id` IS NOT NULL AND h.`id` = NEW.`hold_id`;
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
  WHERE NEW.`batch_id` IS NOT NULL AND b.`id` = NEW.`batch_id`
    AND (SELECT count(*) FROM `transactions` WHERE `batch_id` = NEW.`batch_id`) = b.`entry_count`;
END;

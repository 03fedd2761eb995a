-- hand-written: every table after the tables its foreign keys name, in the schema's own order. An
-- export (`wrangler d1 export`) writes each table's rows right after creating it, in that order, and
-- SQLite refuses a row whose foreign key names a table that does not exist yet ("no such table",
-- deferred keys or not): so an export of a database in use did not load into an empty one. api_keys
-- and balances came before users and wallets (0000 made its tables in name order), and
-- webhook_deliveries before webhook_endpoints (0011). Each is rebuilt, unchanged, so it comes last;
-- AUTOINCREMENT's counter goes on where it was (a deleted delivery's id is never handed out again).
-- As in 0018, the triggers that name a rebuilt table are dropped first and created again, text for
-- text, at the end (renaming the new table checks every trigger that names it): with them every
-- other trigger of the same tables (transactions, holds, balances), in the order they were made,
-- since SQLite runs a table's triggers in that order and a refusal names the first that fires.
-- Nothing names these three tables in a foreign key, so dropping them breaks no key.
--> statement-breakpoint
DROP TRIGGER `balances_no_delete`;
--> statement-breakpoint
DROP TRIGGER `holds_within_available`;
--> statement-breakpoint
DROP TRIGGER `holds_resolved_once`;
--> statement-breakpoint
DROP TRIGGER `holds_no_delete`;
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
DROP TRIGGER `transactions_batch_known`;
--> statement-breakpoint
DROP TRIGGER `events_of_entry`;
--> statement-breakpoint
CREATE TABLE `__new_api_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`scope` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`last_used_at_ms` integer,
	`revoked_at_ms` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "api_keys_scope" CHECK("__new_api_keys"."scope" IN ('read', 'write', 'read-write'))
);
--> statement-breakpoint
INSERT INTO `__new_api_keys`("id", "user_id", "name", "scope", "key_hash", "created_at_ms", "last_used_at_ms", "revoked_at_ms") SELECT "id", "user_id", "name", "scope", "key_hash", "created_at_ms", "last_used_at_ms", "revoked_at_ms" FROM `api_keys`;
--> statement-breakpoint
DELETE FROM `sqlite_sequence` WHERE `name` = '__new_api_keys';
--> statement-breakpoint
INSERT INTO `sqlite_sequence` (`name`, `seq`) SELECT '__new_api_keys', `seq` FROM `sqlite_sequence` WHERE `name` = 'api_keys';
--> statement-breakpoint
DROP TABLE `api_keys`;
--> statement-breakpoint
ALTER TABLE `__new_api_keys` RENAME TO `api_keys`;
--> statement-breakpoint
CREATE TABLE `__new_balances` (
	`user_id` integer NOT NULL,
	`wallet_id` text NOT NULL,
	`balance_minor` integer NOT NULL,
	`entry_count` integer NOT NULL,
	PRIMARY KEY(`user_id`, `wallet_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`wallet_id`) REFERENCES `wallets`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_balances`("user_id", "wallet_id", "balance_minor", "entry_count") SELECT "user_id", "wallet_id", "balance_minor", "entry_count" FROM `balances`;
--> statement-breakpoint
DROP TABLE `balances`;
--> statement-breakpoint
ALTER TABLE `__new_balances` RENAME TO `balances`;
--> statement-breakpoint
CREATE TABLE `__new_webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`endpoint_id` integer NOT NULL,
	`event_id` integer,
	`attempt` integer NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`http_status` integer,
	`latency_ms` integer NOT NULL,
	`error` text,
	`created_at_ms` integer NOT NULL,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "webhook_deliveries_status" CHECK("__new_webhook_deliveries"."status" IN ('delivered', 'failed', 'dead')),
	CONSTRAINT "webhook_deliveries_trigger" CHECK("__new_webhook_deliveries"."trigger" IN ('queue', 'test', 'resend'))
);
--> statement-breakpoint
INSERT INTO `__new_webhook_deliveries`("id", "endpoint_id", "event_id", "attempt", "status", "trigger", "http_status", "latency_ms", "error", "created_at_ms") SELECT "id", "endpoint_id", "event_id", "attempt", "status", "trigger", "http_status", "latency_ms", "error", "created_at_ms" FROM `webhook_deliveries`;
--> statement-breakpoint
DELETE FROM `sqlite_sequence` WHERE `name` = '__new_webhook_deliveries';
--> statement-breakpoint
INSERT INTO `sqlite_sequence` (`name`, `seq`) SELECT '__new_webhook_deliveries', `seq` FROM `sqlite_sequence` WHERE `name` = 'webhook_deliveries';
--> statement-breakpoint
DROP TABLE `webhook_deliveries`;
--> statement-breakpoint
ALTER TABLE `__new_webhook_deliveries` RENAME TO `webhook_deliveries`;
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash` ON `api_keys` (`key_hash`);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint` ON `webhook_deliveries` (`endpoint_id`,`id`);
--> statement-breakpoint
CREATE TRIGGER `balances_no_delete` BEFORE DELETE ON `balances`
BEGIN
  SELECT RAISE(ABORT, 'balance_off_ledger');
END;
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
CREATE TRIGGER `transactions_batch_known` BEFORE INSERT ON `transactions`
WHEN NEW.`batch_id` IS NOT NULL AND coalesce((SELECT `entry_count` FROM `batches` WHERE `id` = NEW.`batch_id`), 0)
  <= (SELECT count(*) FROM `transactions` WHERE `batch_id` = NEW.`batch_id`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_batch_known');
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

CREATE TABLE `batches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`request_id` text NOT NULL,
	`request_key` text,
	`balanced` integer NOT NULL,
	`entry_count` integer NOT NULL,
	`created_at_s` integer NOT NULL,
	`reverses_batch_id` integer,
	FOREIGN KEY (`reverses_batch_id`) REFERENCES `batches`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "batches_key_or_reversal" CHECK(("batches"."request_key" IS NULL) = ("batches"."reverses_batch_id" IS NOT NULL)),
	CONSTRAINT "batches_entry_count" CHECK("batches"."entry_count" BETWEEN 1 AND 200)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `batches_request` ON `batches` (`request_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `batches_reverses` ON `batches` (`reverses_batch_id`) WHERE "batches"."reverses_batch_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `transactions` ADD `batch_id` integer;--> statement-breakpoint
CREATE INDEX `transactions_batch` ON `transactions` (`batch_id`) WHERE "transactions"."batch_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `transactions_user_batch` ON `transactions` (`user_id`,`batch_id`) WHERE "transactions"."batch_id" IS NOT NULL;--> statement-breakpoint
-- hand-written: batches (docs/ledger.md#batches). A batch row is history, like the ledger: it never
-- changes and is never deleted; its status is read from whether a reversal names it.
CREATE TRIGGER `batches_no_update` BEFORE UPDATE ON `batches`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER `batches_no_delete` BEFORE DELETE ON `batches`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only');
END;
--> statement-breakpoint
-- batch_id's foreign key, as a trigger (a real one would have rebuilt the transactions table), and
-- never more entries than the batch declared: its last entry is the one that completes it.
CREATE TRIGGER `transactions_batch_known` BEFORE INSERT ON `transactions`
WHEN NEW.`batch_id` IS NOT NULL AND coalesce((SELECT `entry_count` FROM `batches` WHERE `id` = NEW.`batch_id`), 0)
  <= (SELECT count(*) FROM `transactions` WHERE `batch_id` = NEW.`batch_id`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_batch_known');
END;
--> statement-breakpoint
-- batch.completed and batch.reversed (docs/events.md), written by the statement that writes the
-- batch's last entry, as transaction.created is by each entry's (0011_events). `data` is the batch
-- as it then stood with its entries (each an entry snapshot as transaction.created's); for a
-- reversal, the batch it reversed, now reversed.
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

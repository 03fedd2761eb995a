-- hand-written: a balance point's two triggers read the wallet's last point once each, where they
-- read it once per column (four and two index reads a credit). Each reads it through an aggregate
-- over the one row, which yields a row of NULLs when the wallet has no point yet. What they take
-- and refuse is unchanged (test/timeline-guard.test.ts holds the guard to its rule).
-- SQLite runs a table's triggers newest first: events_of_entry is made again after
-- transactions_to_timeline, text for text, so the AFTER INSERT triggers on transactions keep their
-- order (0021).
DROP TRIGGER `balance_timeline_follows_ledger`;
--> statement-breakpoint
CREATE TRIGGER `balance_timeline_follows_ledger` BEFORE INSERT ON `balance_timeline`
WHEN (SELECT NEW.`seq` IS NOT last.`seq` + 1
    OR NEW.`at_s` < coalesce(last.`at_s`, NEW.`at_s`)
    OR NEW.`entry_id` IS last.`entry_id`
    OR NOT EXISTS (SELECT 1 FROM `transactions` WHERE `id` = NEW.`entry_id` AND `user_id` = NEW.`user_id`
      AND `wallet_id` = NEW.`wallet_id` AND `balance_after_minor` = NEW.`balance_after_minor`
      AND `created_at_s` <= NEW.`at_s` AND `balance_before_minor` = last.`balance_after_minor`)
  FROM (SELECT coalesce(max(p.`seq`), 0) AS `seq`, max(p.`at_s`) AS `at_s`, max(p.`entry_id`) AS `entry_id`,
      coalesce(max(p.`balance_after_minor`), 0) AS `balance_after_minor`
    FROM (SELECT `seq`, `at_s`, `entry_id`, `balance_after_minor` FROM `balance_timeline`
      WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`
      ORDER BY `at_s` DESC, `seq` DESC LIMIT 1) p) last)
BEGIN
  SELECT RAISE(ABORT, 'timeline_off_ledger');
END;
--> statement-breakpoint
DROP TRIGGER `transactions_to_timeline`;
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
DROP TRIGGER `events_of_entry`;
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

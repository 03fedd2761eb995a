-- An entry's events in the order docs/events.md promises: its own transaction.created first, then
-- hold.captured for a capture and batch.completed or batch.reversed for a batch's last entry. They
-- were three AFTER INSERT triggers, and SQLite fires the newest first, so a batch's event came
-- before its last entry's. One trigger now writes all three, in the order of its statements.
DROP TRIGGER `events_transaction_created`;
--> statement-breakpoint
DROP TRIGGER `events_hold_captured`;
--> statement-breakpoint
DROP TRIGGER `events_batch_written`;
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

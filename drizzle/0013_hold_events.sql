-- hand-written: hold.* events (docs/events.md), written by the statement that makes the change, as
-- the other events are (0011_events). The snapshot is the hold's row and its wallet's display units.
-- hold.placed when a hold is placed; hold.captured with the capture's DEBIT entry (written in the
-- same batch after the hold is marked captured, so the event names its transaction); hold.voided when
-- voided; hold.expired when the cron records an expiry (the hold stopped counting at its expires_at
-- already: this event may come up to a minute after it).
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

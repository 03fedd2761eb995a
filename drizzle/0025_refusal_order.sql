-- hand-written: SQLite runs a table's triggers newest first, and a refusal names the first that
-- fires (0019, 0021). 0024 made transactions_balance_limit again, so it became the newest and ran
-- before the triggers that refuse a used request_id or a second reversal: a batch leg whose
-- request_id an entry or a hold already has, crediting a balance past the largest, answered 400
-- "past the largest balance" where it answered 409 "Transaction already exists" (as a credit on its
-- own still does). The BEFORE INSERT triggers made after it are made again, text for text and in
-- the order 0021 and 0022 made them, so they run before it as they did before 0024.
DROP TRIGGER `transactions_no_replace`;
--> statement-breakpoint
DROP TRIGGER `transactions_reversed_once`;
--> statement-breakpoint
DROP TRIGGER `transactions_request_key_folded`;
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

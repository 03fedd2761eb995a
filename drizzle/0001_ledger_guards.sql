-- Ledger guards the schema cannot state as CHECKs. D1 has no interactive transactions, so these
-- make every broken invariant a failing statement, which rolls back the whole batch it is in.

-- Each entry continues its (user, wallet) chain: balance_before is the balance as it stands now.
CREATE TRIGGER `transactions_chain_guard` BEFORE INSERT ON `transactions`
WHEN NEW.`balance_before_minor` IS NOT coalesce(
  (SELECT `balance_minor` FROM `balances` WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`), 0)
BEGIN
  SELECT RAISE(ABORT, 'ledger_chain_broken');
END;
--> statement-breakpoint
-- The balance row is the chain's head; it is written only here.
CREATE TRIGGER `transactions_apply_to_balance` AFTER INSERT ON `transactions`
BEGIN
  INSERT INTO `balances` (`user_id`, `wallet_id`, `balance_minor`, `entry_count`)
  VALUES (NEW.`user_id`, NEW.`wallet_id`, NEW.`balance_after_minor`, 1)
  ON CONFLICT (`user_id`, `wallet_id`) DO UPDATE
    SET `balance_minor` = excluded.`balance_minor`, `entry_count` = `entry_count` + 1;
END;
--> statement-breakpoint
-- The ledger is append-only: corrections are new entries.
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
-- A balance is always the balance_after of its newest entry, so it equals the sum of the entries.
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
CREATE TRIGGER `balances_no_delete` BEFORE DELETE ON `balances`
BEGIN
  SELECT RAISE(ABORT, 'balance_off_ledger');
END;

-- hand-written around drizzle-kit's: a page of one wallet's entries is in (date, id) order, and
-- `(user_id, wallet_id, id)` could not give it without reading every entry of the user's in the
-- wallet and sorting them (or walking the user's other wallets' entries along
-- transactions_user_created). The index now holds the wallet's entries in the page's order, one
-- index row per entry as before. What read a wallet's chain newest first through the old index
-- reads the balance timeline's key instead, whose order is the chain's: the balance guards below
-- compare the balance with the chain's newest point, which transactions_to_timeline has written by
-- the time transactions_apply_to_balance (the oldest trigger on transactions, so the last to fire)
-- writes the balance. A point holds its entry's balance_after (balance_timeline_follows_ledger),
-- and now an id above its chain's newest, as the balance guards reading the newest by id required:
-- the chain's order stays the ids' order, which the summary's last entry and the replay rely on.
DROP INDEX `transactions_balance_chain`;--> statement-breakpoint
CREATE INDEX `transactions_user_wallet_created` ON `transactions` (`user_id`,`wallet_id`,`created_at_s`,`id`);--> statement-breakpoint
DROP TRIGGER `balances_follow_ledger_insert`;
--> statement-breakpoint
DROP TRIGGER `balances_follow_ledger_update`;
--> statement-breakpoint
CREATE TRIGGER `balances_follow_ledger_insert` BEFORE INSERT ON `balances`
WHEN NEW.`balance_minor` IS NOT (
  SELECT `balance_after_minor` FROM `balance_timeline`
  WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id` ORDER BY `at_s` DESC, `seq` DESC LIMIT 1)
BEGIN
  SELECT RAISE(ABORT, 'balance_off_ledger');
END;
--> statement-breakpoint
CREATE TRIGGER `balances_follow_ledger_update` BEFORE UPDATE ON `balances`
WHEN NEW.`balance_minor` IS NOT (
  SELECT `balance_after_minor` FROM `balance_timeline`
  WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id` ORDER BY `at_s` DESC, `seq` DESC LIMIT 1)
BEGIN
  SELECT RAISE(ABORT, 'balance_off_ledger');
END;
--> statement-breakpoint
DROP TRIGGER `balance_timeline_follows_ledger`;
--> statement-breakpoint
CREATE TRIGGER `balance_timeline_follows_ledger` BEFORE INSERT ON `balance_timeline`
WHEN (SELECT NEW.`seq` IS NOT last.`seq` + 1
    OR NEW.`at_s` < coalesce(last.`at_s`, NEW.`at_s`)
    OR NEW.`entry_id` <= last.`entry_id`
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

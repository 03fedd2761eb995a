CREATE TABLE `balance_timeline` (
	`user_id` integer NOT NULL,
	`wallet_id` text NOT NULL,
	`at_s` integer NOT NULL,
	`seq` integer NOT NULL,
	`entry_id` integer NOT NULL,
	`balance_after_minor` integer NOT NULL,
	PRIMARY KEY(`user_id`, `wallet_id`, `at_s`, `seq`),
	FOREIGN KEY (`entry_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- hand-written: the same table WITHOUT ROWID (drizzle cannot declare it): its primary key is the
-- table, so each entry writes one row here and a point-in-time read is one seek of it.
DROP TABLE `balance_timeline`;
--> statement-breakpoint
CREATE TABLE `balance_timeline` (
	`user_id` integer NOT NULL,
	`wallet_id` text NOT NULL,
	`at_s` integer NOT NULL,
	`seq` integer NOT NULL,
	`entry_id` integer NOT NULL,
	`balance_after_minor` integer NOT NULL,
	PRIMARY KEY(`user_id`, `wallet_id`, `at_s`, `seq`),
	FOREIGN KEY (`entry_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
-- hand-written: the entries written before this migration, each chain in the order of its ids (the
-- order the chain guard let them in: the import writes each chain in id order).
INSERT INTO `balance_timeline` (`user_id`, `wallet_id`, `at_s`, `seq`, `entry_id`, `balance_after_minor`)
SELECT `user_id`, `wallet_id`,
  max(`created_at_s`) OVER (PARTITION BY `user_id`, `wallet_id` ORDER BY `id` ROWS UNBOUNDED PRECEDING),
  row_number() OVER (PARTITION BY `user_id`, `wallet_id` ORDER BY `id`),
  `id`, `balance_after_minor`
FROM `transactions` ORDER BY `id`;
--> statement-breakpoint
-- hand-written: every entry joins the timeline as it is written (docs/ledger.md#balances-at-a-point-in-time).
-- at_s never goes back along a chain: an entry dated before the chain's latest point counts from it.
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
-- hand-written: a point continues its chain from its own entry, as the trigger above writes it: the
-- entry's user, wallet and balances (its balance_before the chain's last point's balance), the next
-- seq, no earlier at_s and none before the entry's date. Nothing else can add a point.
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

CREATE TABLE `holds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
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
	CONSTRAINT "holds_status" CHECK("holds"."status" IN ('held', 'captured', 'voided', 'expired')),
	CONSTRAINT "holds_amount_positive" CHECK("holds"."amount_minor" > 0),
	CONSTRAINT "holds_expiry_after_creation" CHECK("holds"."expires_at_s" > "holds"."created_at_s"),
	CONSTRAINT "holds_resolution" CHECK(("holds"."status" = 'held') = ("holds"."resolved_at_s" IS NULL) AND ("holds"."status" = 'captured') = ("holds"."captured_minor" IS NOT NULL)),
	CONSTRAINT "holds_captured_within" CHECK("holds"."captured_minor" IS NULL OR "holds"."captured_minor" BETWEEN 1 AND "holds"."amount_minor")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `holds_user_request` ON `holds` (`user_id`,`request_key`);--> statement-breakpoint
CREATE INDEX `holds_active` ON `holds` (`user_id`,`wallet_id`,`expires_at_s`,`amount_minor`) WHERE "holds"."status" = 'held';--> statement-breakpoint
CREATE INDEX `holds_expiry` ON `holds` (`expires_at_s`) WHERE "holds"."status" = 'held';--> statement-breakpoint
CREATE INDEX `holds_user` ON `holds` (`user_id`,`id`);--> statement-breakpoint
ALTER TABLE `transactions` ADD `hold_id` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_hold` ON `transactions` (`hold_id`) WHERE "transactions"."hold_id" IS NOT NULL;
--> statement-breakpoint
-- hand-written: the guards of holds (docs/ledger.md#holds). "Now" inside a guard is the writer's
-- clock as the row it judges carries it (a hold's created_at_s, an entry's created_at_s, a
-- resolution's resolved_at_s), whole seconds like every date of the ledger: a hold counts against
-- the available balance while it is 'held' and now < expires_at_s, with no job needed at expiry.
--
-- A hold is placed only within the available balance (balance minus the holds that count).
CREATE TRIGGER `holds_within_available` BEFORE INSERT ON `holds`
WHEN NEW.`amount_minor` > coalesce((SELECT `balance_minor` FROM `balances` WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`), 0)
  - (SELECT coalesce(sum(`amount_minor`), 0) FROM `holds`
     WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id` AND `status` = 'held' AND `expires_at_s` > NEW.`created_at_s`)
BEGIN
  SELECT RAISE(ABORT, 'holds_within_available');
END;
--> statement-breakpoint
-- A hold is placed 'held', never over another (INSERT OR REPLACE), under its request_id folded as an
-- entry's key is, and only while no entry of the user has that key: entries and holds share one key
-- space (transactions_request_key_free is the other half).
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
-- Each hold leaves 'held' exactly once and nothing else of it changes: captured or voided before it
-- expires, expired at or after expires_at_s. A capture's debit may then name it (below).
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
-- No entry that lowers a balance may take it below the holds that count: the available balance
-- never goes below zero. A balance going below zero is the CHECK transactions_no_overdraft's to
-- refuse (so its verdict and message stay as they were); imported entries keep the site's history.
CREATE TRIGGER `transactions_within_available` BEFORE INSERT ON `transactions`
WHEN NEW.`imported` = 0 AND NEW.`balance_after_minor` >= 0
  AND NEW.`balance_after_minor` < NEW.`balance_before_minor`
  AND NEW.`balance_after_minor` < (SELECT coalesce(sum(`amount_minor`), 0) FROM `holds`
     WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id` AND `status` = 'held' AND `expires_at_s` > NEW.`created_at_s`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_within_available');
END;
--> statement-breakpoint
-- A capture's DEBIT names its hold, which must be captured for exactly that amount in that wallet;
-- UNIQUE(hold_id) makes it the only one.
CREATE TRIGGER `transactions_hold_captured` BEFORE INSERT ON `transactions`
WHEN NEW.`hold_id` IS NOT NULL AND NOT EXISTS (SELECT 1 FROM `holds`
  WHERE `id` = NEW.`hold_id` AND `status` = 'captured' AND `user_id` = NEW.`user_id`
    AND `wallet_id` = NEW.`wallet_id` AND `captured_minor` = NEW.`amount_minor` AND NEW.`txn_type` = 'DEBIT')
BEGIN
  SELECT RAISE(ABORT, 'transactions_hold_captured');
END;

-- INSERT OR REPLACE deletes the row it conflicts with without firing `transactions_no_delete`
-- (SQLite fires delete triggers for REPLACE only under recursive_triggers). So an insert that
-- collides with an existing entry on any unique key is refused before conflict resolution runs.
-- The service's own inserts never collide: their WHERE skips a used request_id or reversal.
CREATE TRIGGER `transactions_no_replace` BEFORE INSERT ON `transactions`
WHEN EXISTS (SELECT 1 FROM `transactions` WHERE `id` = NEW.`id`)
  OR EXISTS (SELECT 1 FROM `transactions` WHERE `user_id` = NEW.`user_id` AND `request_key` = NEW.`request_key`)
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only');
END;
--> statement-breakpoint
-- A second reversal of one entry is refused by name, as UNIQUE(reverses_id) would refuse it.
CREATE TRIGGER `transactions_reversed_once` BEFORE INSERT ON `transactions`
WHEN NEW.`reverses_id` IS NOT NULL AND EXISTS (SELECT 1 FROM `transactions` WHERE `reverses_id` = NEW.`reverses_id`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_reverses');
END;

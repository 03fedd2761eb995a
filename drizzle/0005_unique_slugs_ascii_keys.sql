-- Issue 11: idempotency keys fold ASCII letters only; slugs and stored guids are unique.
--
-- 1. request_key was request_id lower-cased with full Unicode rules (the Kelvin sign K became k).
--    It is recomputed with A-Z folded to a-z and nothing else (only rows whose key changes are
--    written); this cannot make two keys of one user equal that were different before (the ASCII
--    fold is finer than the Unicode one).
-- 2. Entries that share a slug (the old -N suffix counted rows, not actual slugs) keep it on the
--    oldest; each later one gets its own id appended (`<slug>-<id>`). Stored guids that repeat keep
--    it on the oldest; later ones are cleared, so they read as SITE_URL/wallettransaction/<slug>/.
-- The ledger is append-only (transactions_no_update), so the guard is lifted for these updates only.
DROP TRIGGER `transactions_no_update`;
--> statement-breakpoint
UPDATE `transactions` SET `request_key` = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(`request_id`, 'A', 'a'), 'B', 'b'), 'C', 'c'), 'D', 'd'), 'E', 'e'), 'F', 'f'), 'G', 'g'), 'H', 'h'), 'I', 'i'), 'J', 'j'), 'K', 'k'), 'L', 'l'), 'M', 'm'), 'N', 'n'), 'O', 'o'), 'P', 'p'), 'Q', 'q'), 'R', 'r'), 'S', 's'), 'T', 't'), 'U', 'u'), 'V', 'v'), 'W', 'w'), 'X', 'x'), 'Y', 'y'), 'Z', 'z')
WHERE `request_key` IS NOT NULL AND `request_key` IS NOT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(`request_id`, 'A', 'a'), 'B', 'b'), 'C', 'c'), 'D', 'd'), 'E', 'e'), 'F', 'f'), 'G', 'g'), 'H', 'h'), 'I', 'i'), 'J', 'j'), 'K', 'k'), 'L', 'l'), 'M', 'm'), 'N', 'n'), 'O', 'o'), 'P', 'p'), 'Q', 'q'), 'R', 'r'), 'S', 's'), 'T', 't'), 'U', 'u'), 'V', 'v'), 'W', 'w'), 'X', 'x'), 'Y', 'y'), 'Z', 'z');
--> statement-breakpoint
-- Indexes for the look-ups below only (dropped after), so the repair reads each row once.
CREATE INDEX `transactions_slug_repair` ON `transactions` (`slug`, `id`);
--> statement-breakpoint
CREATE INDEX `transactions_guid_repair` ON `transactions` (`guid`, `id`);
--> statement-breakpoint
UPDATE `transactions` SET `slug` = rtrim(substr(`slug`, 1, 199 - length(`id`)), '-') || '-' || `id`
WHERE `slug` <> '' AND EXISTS (SELECT 1 FROM `transactions` AS `older` WHERE `older`.`slug` = `transactions`.`slug` AND `older`.`id` < `transactions`.`id`);
--> statement-breakpoint
UPDATE `transactions` SET `guid` = NULL
WHERE `guid` <> '' AND EXISTS (SELECT 1 FROM `transactions` AS `older` WHERE `older`.`guid` = `transactions`.`guid` AND `older`.`id` < `transactions`.`id`);
--> statement-breakpoint
DROP INDEX `transactions_slug_repair`;
--> statement-breakpoint
DROP INDEX `transactions_guid_repair`;
--> statement-breakpoint
CREATE TRIGGER `transactions_no_update` BEFORE UPDATE ON `transactions`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only');
END;
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_slug` ON `transactions` (`slug`) WHERE "transactions"."slug" <> '';--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_guid` ON `transactions` (`guid`) WHERE "transactions"."guid" <> '';
--> statement-breakpoint
-- Every key written from now on must be its request_id folded the same way (src/ledger/request-key.ts).
CREATE TRIGGER `transactions_request_key_folded` BEFORE INSERT ON `transactions`
WHEN NEW.`request_key` IS NOT NULL AND NEW.`request_key` IS NOT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(NEW.`request_id`, 'A', 'a'), 'B', 'b'), 'C', 'c'), 'D', 'd'), 'E', 'e'), 'F', 'f'), 'G', 'g'), 'H', 'h'), 'I', 'i'), 'J', 'j'), 'K', 'k'), 'L', 'l'), 'M', 'm'), 'N', 'n'), 'O', 'o'), 'P', 'p'), 'Q', 'q'), 'R', 'r'), 'S', 's'), 'T', 't'), 'U', 'u'), 'V', 'v'), 'W', 'w'), 'X', 'x'), 'Y', 'y'), 'Z', 'z')
BEGIN
  SELECT RAISE(ABORT, 'transactions_request_key_fold');
END;

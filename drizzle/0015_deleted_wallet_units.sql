-- A wallet's units never change (0006's wallets_units_fixed), and deleting a wallet no entry names
-- must not become a way round that: an isolate that cached the deleted wallet (src/db/isolate-cache.ts)
-- would convert a credit to a wallet re-created under its id with the old decimals. So the units of
-- every deleted wallet id are kept, and a wallet re-created under it must have the same. Wallets
-- deleted before this migration were not recorded.
CREATE TABLE `deleted_wallets` (
	`id` text PRIMARY KEY NOT NULL,
	`decimals` integer NOT NULL,
	`extra_decimals` integer NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `wallets_deleted_keep_units` AFTER DELETE ON `wallets`
BEGIN
  INSERT INTO `deleted_wallets` (`id`, `decimals`, `extra_decimals`)
  VALUES (OLD.`id`, OLD.`decimals`, OLD.`extra_decimals`)
  ON CONFLICT (`id`) DO NOTHING;
END;
--> statement-breakpoint
-- A live id is left to the primary key (a plain conflict: "exists"), so only a re-creation is judged.
CREATE TRIGGER `wallets_recreated_units_fixed` BEFORE INSERT ON `wallets`
WHEN NOT EXISTS (SELECT 1 FROM `wallets` WHERE `id` = NEW.`id`)
  AND EXISTS (SELECT 1 FROM `deleted_wallets` WHERE `id` = NEW.`id`
    AND (`decimals` IS NOT NEW.`decimals` OR `extra_decimals` IS NOT NEW.`extra_decimals`))
BEGIN
  SELECT RAISE(ABORT, 'wallets_units_fixed');
END;
--> statement-breakpoint
CREATE TRIGGER `deleted_wallets_no_update` BEFORE UPDATE ON `deleted_wallets`
BEGIN
  SELECT RAISE(ABORT, 'deleted_wallets_fixed');
END;
--> statement-breakpoint
CREATE TRIGGER `deleted_wallets_no_delete` BEFORE DELETE ON `deleted_wallets`
BEGIN
  SELECT RAISE(ABORT, 'deleted_wallets_fixed');
END;

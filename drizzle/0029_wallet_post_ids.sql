-- hand-written around drizzle-kit's: the Rimplenet dialect answers a wallet's `post_id` (GET
-- wallets, POST wallets' data.wallet_id) as the plugin answered its WordPress post id, which MySQL
-- never gave twice. It was the wallet's row number: SQLite gives a new row the highest live row
-- number plus one, so a wallet created after the newest one was deleted took the deleted wallet's,
-- and `wrangler d1 export`, which writes no row numbers, had a database loaded from it number the
-- wallets again (after a deletion, the later ones other numbers than before). Now a column of its
-- own, which an export carries: each wallet keeps the number it answered, and a new wallet takes
-- one above every wallet's, a deleted one's too (the highest kept in deleted_wallet_post_ids;
-- wallets deleted before this migration were not recorded). A wallet inserted with a post_id (a
-- restore) keeps it; the unique index refuses a taken one.
CREATE TABLE `deleted_wallet_post_ids` (
	`id` integer PRIMARY KEY NOT NULL,
	`highest` integer NOT NULL,
	CONSTRAINT "deleted_wallet_post_ids_one" CHECK("deleted_wallet_post_ids"."id" = 1)
);
--> statement-breakpoint
ALTER TABLE `wallets` ADD `post_id` integer;
--> statement-breakpoint
UPDATE `wallets` SET `post_id` = rowid;
--> statement-breakpoint
CREATE UNIQUE INDEX `wallets_post_id` ON `wallets` (`post_id`);
--> statement-breakpoint
CREATE TRIGGER `wallets_post_id` AFTER INSERT ON `wallets`
WHEN NEW.`post_id` IS NULL
BEGIN
  UPDATE `wallets` SET `post_id` = max(
      coalesce((SELECT max(`post_id`) FROM `wallets`), 0),
      coalesce((SELECT `highest` FROM `deleted_wallet_post_ids` WHERE `id` = 1), 0)) + 1
  WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `wallets_deleted_keep_post_id` AFTER DELETE ON `wallets`
WHEN OLD.`post_id` IS NOT NULL
BEGIN
  INSERT INTO `deleted_wallet_post_ids` (`id`, `highest`) VALUES (1, OLD.`post_id`)
  ON CONFLICT (`id`) DO UPDATE SET `highest` = max(`highest`, excluded.`highest`);
END;

CREATE TABLE `deleted_users` (
	`id` integer PRIMARY KEY NOT NULL,
	`deleted_at_ms` integer NOT NULL
);
--> statement-breakpoint
-- hand-written: a deleted user's id is never given to another user. An isolate that cached the
-- deleted user's username (src/db/isolate-cache.ts) would title the new user's entries with it.
-- The service's own users take ids above every id used (AUTOINCREMENT), but the WordPress import
-- writes a site's user ids as they are: it reads this table and leaves such a user out, and the
-- trigger below refuses what gets past it. The time is the database's own, as an event's.
CREATE TRIGGER `users_deleted_keep_id` AFTER DELETE ON `users`
BEGIN
  INSERT INTO `deleted_users` (`id`, `deleted_at_ms`)
  VALUES (OLD.`id`, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
  ON CONFLICT (`id`) DO NOTHING;
END;
--> statement-breakpoint
-- An insert without an id (the service's own) has none here to judge; one naming a deleted id fails.
CREATE TRIGGER `users_deleted_id_not_reused` BEFORE INSERT ON `users`
WHEN EXISTS (SELECT 1 FROM `deleted_users` WHERE `id` = NEW.`id`)
BEGIN
  SELECT RAISE(ABORT, 'users_id_deleted');
END;
--> statement-breakpoint
CREATE TRIGGER `deleted_users_no_update` BEFORE UPDATE ON `deleted_users`
BEGIN
  SELECT RAISE(ABORT, 'deleted_users_fixed');
END;
--> statement-breakpoint
CREATE TRIGGER `deleted_users_no_delete` BEFORE DELETE ON `deleted_users`
BEGIN
  SELECT RAISE(ABORT, 'deleted_users_fixed');
END;
--> statement-breakpoint
-- hand-written: the users deleted since 0020, whose user.deleted events say so (events are never
-- deleted), unless an id was given again since (before this migration the import could): that
-- user is the id's now; an id deleted more than once is recorded at its latest deletion. Users
-- deleted before 0020 left no record. By the partial index events_type.
INSERT INTO `deleted_users` (`id`, `deleted_at_ms`)
SELECT CAST(`subject` AS INTEGER), max(`created_at_ms`) FROM `events`
WHERE `type` = 'user.deleted' AND `type` <> 'transaction.created'
  AND CAST(`subject` AS INTEGER) NOT IN (SELECT `id` FROM `users`)
GROUP BY `subject`;

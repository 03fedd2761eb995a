-- A user or wallet deleted (only ever one no entry names: the plugin dialect's DELETE routes) is an
-- event too, so a feed or webhook subscriber that mirrors users and wallets sees it go. The data is
-- the row as it stood, in the shape of its `*.created` event; the time is the database's own.
CREATE TRIGGER `events_user_deleted` AFTER DELETE ON `users`
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  VALUES ('user.deleted', CAST(OLD.`id` AS TEXT), json_object(
      'id', OLD.`id`, 'username', OLD.`username`, 'email', OLD.`email`,
      'first_name', OLD.`first_name`, 'last_name', OLD.`last_name`, 'role', OLD.`role`,
      'registered_at_ms', OLD.`registered_at_ms`),
    CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;
--> statement-breakpoint
CREATE TRIGGER `events_wallet_deleted` AFTER DELETE ON `wallets`
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  VALUES ('wallet.deleted', OLD.`id`, json_object(
      'id', OLD.`id`, 'name', OLD.`name`, 'symbol', OLD.`symbol`,
      'symbol_position', OLD.`symbol_position`, 'decimals', OLD.`decimals`, 'type', OLD.`type`,
      'note', OLD.`note`, 'created_at_ms', OLD.`created_at_ms`),
    CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

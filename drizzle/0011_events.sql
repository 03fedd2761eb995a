CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`subject` text NOT NULL,
	`data` text NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_type` ON `events` (`type`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`endpoint_id` integer NOT NULL,
	`event_id` integer,
	`attempt` integer NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`http_status` integer,
	`latency_ms` integer NOT NULL,
	`error` text,
	`created_at_ms` integer NOT NULL,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "webhook_deliveries_status" CHECK("webhook_deliveries"."status" IN ('delivered', 'failed', 'dead')),
	CONSTRAINT "webhook_deliveries_trigger" CHECK("webhook_deliveries"."trigger" IN ('queue', 'test', 'resend'))
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint` ON `webhook_deliveries` (`endpoint_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`url` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`event_types` text NOT NULL,
	`secret_cipher` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`cursor_event_id` integer NOT NULL,
	`head_attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at_ms` integer DEFAULT 0 NOT NULL,
	`lease_token` text,
	`lease_until_ms` integer DEFAULT 0 NOT NULL,
	`failing_since_ms` integer,
	CONSTRAINT "webhook_endpoints_attempts" CHECK("webhook_endpoints"."head_attempts" >= 0)
);
--> statement-breakpoint
-- hand-written:
-- The outbox is written by the database itself, in the statement that makes the change: whatever
-- path writes an entry, a user or a wallet (either API dialect, the console, a group-committed
-- batch, the dev seed, an operator's SQL), its event commits with it or not at all. `data` is the
-- row as it committed (src/db/events.ts renders it as the API's record). Entries the WordPress
-- import carries over (imported = 1) are the site's history, not changes made here: no event.
-- hold.* events: a trigger of the same shape on the holds table.
CREATE TRIGGER `events_transaction_created` AFTER INSERT ON `transactions`
WHEN NEW.`imported` = 0
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  SELECT 'transaction.created', CAST(NEW.`id` AS TEXT), json_set(json_object(
      'id', NEW.`id`, 'user_id', NEW.`user_id`, 'wallet_id', NEW.`wallet_id`,
      'txn_type', NEW.`txn_type`, 'amount_minor', NEW.`amount_minor`, 'amount_text', NEW.`amount_text`,
      'balance_after_minor', NEW.`balance_after_minor`, 'request_id', NEW.`request_id`,
      'transfer_id', NEW.`transfer_id`, 'reverses_id', NEW.`reverses_id`, 'note', NEW.`note`,
      'title', NEW.`title`, 'slug', NEW.`slug`, 'guid', NEW.`guid`, 'created_at_s', NEW.`created_at_s`,
      'symbol', w.`symbol`),
      '$.symbol_position', w.`symbol_position`, '$.decimals', w.`decimals`,
      '$.extra_decimals', w.`extra_decimals`),
    NEW.`created_at_s` * 1000
  FROM `wallets` w WHERE w.`id` = NEW.`wallet_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `events_user_created` AFTER INSERT ON `users`
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  VALUES ('user.created', CAST(NEW.`id` AS TEXT), json_object(
      'id', NEW.`id`, 'username', NEW.`username`, 'email', NEW.`email`,
      'first_name', NEW.`first_name`, 'last_name', NEW.`last_name`, 'role', NEW.`role`,
      'registered_at_ms', NEW.`registered_at_ms`),
    NEW.`registered_at_ms`);
END;
--> statement-breakpoint
CREATE TRIGGER `events_wallet_created` AFTER INSERT ON `wallets`
BEGIN
  INSERT INTO `events` (`type`, `subject`, `data`, `created_at_ms`)
  VALUES ('wallet.created', NEW.`id`, json_object(
      'id', NEW.`id`, 'name', NEW.`name`, 'symbol', NEW.`symbol`,
      'symbol_position', NEW.`symbol_position`, 'decimals', NEW.`decimals`, 'type', NEW.`type`,
      'note', NEW.`note`, 'created_at_ms', NEW.`created_at_ms`),
    NEW.`created_at_ms`);
END;
--> statement-breakpoint
-- The feed is history: an event is never rewritten.
CREATE TRIGGER `events_no_update` BEFORE UPDATE ON `events`
BEGIN
  SELECT RAISE(ABORT, 'events_append_only');
END;

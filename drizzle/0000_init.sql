CREATE TABLE `api_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`scope` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`last_used_at_ms` integer,
	`revoked_at_ms` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "api_keys_scope" CHECK("api_keys"."scope" IN ('read', 'write', 'read-write'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `balances` (
	`user_id` integer NOT NULL,
	`wallet_id` text NOT NULL,
	`balance_minor` integer NOT NULL,
	`entry_count` integer NOT NULL,
	PRIMARY KEY(`user_id`, `wallet_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`wallet_id`) REFERENCES `wallets`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`wallet_id` text NOT NULL,
	`txn_type` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`amount_text` text NOT NULL,
	`balance_before_minor` integer NOT NULL,
	`balance_after_minor` integer NOT NULL,
	`request_id` text NOT NULL,
	`request_key` text,
	`transfer_id` text,
	`reverses_id` integer,
	`note` text DEFAULT '' NOT NULL,
	`title` text NOT NULL,
	`slug_base` text NOT NULL,
	`slug` text NOT NULL,
	`created_at_s` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`wallet_id`) REFERENCES `wallets`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`reverses_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "transactions_txn_type" CHECK("transactions"."txn_type" IN ('CREDIT', 'DEBIT')),
	CONSTRAINT "transactions_amount_positive" CHECK("transactions"."amount_minor" > 0),
	CONSTRAINT "transactions_balance_arithmetic" CHECK("transactions"."balance_after_minor" = "transactions"."balance_before_minor" + CASE "transactions"."txn_type" WHEN 'CREDIT' THEN "transactions"."amount_minor" ELSE -"transactions"."amount_minor" END),
	CONSTRAINT "transactions_no_overdraft" CHECK("transactions"."balance_after_minor" >= 0),
	CONSTRAINT "transactions_balance_limit" CHECK("transactions"."balance_after_minor" <= 9007199254740991)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_user_request` ON `transactions` (`user_id`,`request_key`);--> statement-breakpoint
CREATE INDEX `transactions_user_created` ON `transactions` (`user_id`,`created_at_s`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_balance_chain` ON `transactions` (`user_id`,`wallet_id`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_slug_base` ON `transactions` (`slug_base`);--> statement-breakpoint
CREATE INDEX `transactions_transfer` ON `transactions` (`transfer_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_reverses` ON `transactions` (`reverses_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`first_name` text DEFAULT '' NOT NULL,
	`last_name` text DEFAULT '' NOT NULL,
	`role` text NOT NULL,
	`registered_at_ms` integer NOT NULL,
	CONSTRAINT "users_role" CHECK("users"."role" IN ('administrator', 'subscriber'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_ci` ON `users` (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_ci` ON `users` (lower("email"));--> statement-breakpoint
CREATE TABLE `wallets` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`symbol` text NOT NULL,
	`symbol_position` text NOT NULL,
	`decimals` integer NOT NULL,
	`type` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "wallets_id_lowercase" CHECK("wallets"."id" = lower("wallets"."id")),
	CONSTRAINT "wallets_decimals" CHECK("wallets"."decimals" BETWEEN 0 AND 8),
	CONSTRAINT "wallets_symbol_position" CHECK("wallets"."symbol_position" IN ('left', 'right'))
);

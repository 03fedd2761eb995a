CREATE TABLE `mail_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`body_text` text NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `mail_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`user_id` integer NOT NULL,
	`email` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`used_at_ms` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "mail_tokens_purpose" CHECK("mail_tokens"."purpose" IN ('verify-email', 'password-reset'))
);
--> statement-breakpoint
CREATE INDEX `mail_tokens_user` ON `mail_tokens` (`user_id`,`purpose`,`expires_at_ms`);--> statement-breakpoint
ALTER TABLE `users` ADD `email_verified_at_ms` integer;
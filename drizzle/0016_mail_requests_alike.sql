-- Every request for a mail writes one mail_tokens row, whether or not an account can use it (its
-- user_id is then null), so a request's writes do not tell whether the address has an account.
-- Expired rows are pruned by age (mail_tokens_expiry), whoever they were for. SQLite cannot drop a
-- NOT NULL, so the table is rebuilt as drizzle-kit writes it; nothing references it.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_mail_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`user_id` integer,
	`email` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`used_at_ms` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "mail_tokens_purpose" CHECK("__new_mail_tokens"."purpose" IN ('verify-email', 'password-reset'))
);
--> statement-breakpoint
INSERT INTO `__new_mail_tokens`("token_hash", "purpose", "user_id", "email", "created_at_ms", "expires_at_ms", "used_at_ms") SELECT "token_hash", "purpose", "user_id", "email", "created_at_ms", "expires_at_ms", "used_at_ms" FROM `mail_tokens`;--> statement-breakpoint
DROP TABLE `mail_tokens`;--> statement-breakpoint
ALTER TABLE `__new_mail_tokens` RENAME TO `mail_tokens`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `mail_tokens_user` ON `mail_tokens` (`user_id`,`purpose`,`expires_at_ms`);--> statement-breakpoint
CREATE INDEX `mail_tokens_expiry` ON `mail_tokens` (`expires_at_ms`);
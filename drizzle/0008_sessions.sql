CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`audience` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`revoked_at_ms` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "sessions_audience" CHECK("sessions"."audience" IN ('wallet-api', 'wallet-console'))
);
--> statement-breakpoint
CREATE INDEX `sessions_user_expires` ON `sessions` (`user_id`,`expires_at_ms`);
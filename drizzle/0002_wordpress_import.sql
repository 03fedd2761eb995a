ALTER TABLE `transactions` ADD `guid` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `local_date` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `modified_local_date` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `modified_gmt_date` text;